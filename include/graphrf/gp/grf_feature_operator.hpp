#pragma once
// The GRF feature matrix Phi(f) = sum_t f_t M_t (rows: start nodes, columns: visited nodes) as a distributed
// linear operator for Gaussian processes, built once from the length-resolved walks and re-weighted for every
// modulation f without walking again.
//
// Products are rank-invariant (bitwise the same for any rank count and partition): every sum runs in canonical
// node order (ascending original id), never in an order that depends on which rank holds what.
//  - Phi C (rows of this rank): a row's entries are kept sorted by the canonical index of their column; the
//    rows of C at remote columns are fetched from their owners before the sum.
//  - Phi^T V (columns owned by this rank): the entries of M_t are also stored transposed at the column's owner,
//    sorted by the canonical index of their row; the rows of V at remote rows are fetched. This is the column
//    reduction of masked attention (partial sums sent to the column's owner), but with one term per nonzero
//    summed in a fixed order instead of per-rank partial sums, whose grouping would depend on the partition.
//  - An entry Phi[i, q] = sum_t f_t M_t[i, q] is summed in ascending t on both sides, so both agree bitwise.
// Blocks are n_local x b (local row order, column-major); every member taking or returning one is collective.
#include <Eigen/Dense>
#include <cstdint>
#include <span>
#include <vector>

#include "graphrf/graph/distributed_graph.hpp"
#include "graphrf/grf/grf_matrix.hpp"

namespace graphrf {

class GrfFeatureOperator {
 public:
  // Collective. `m` holds this rank's rows of the length-resolved walks (compute_grf's by_length).
  GrfFeatureOperator(const DistributedGraph& g, const LengthResolvedGrf& m);

  const DistributedGraph& graph() const { return *graph_; }
  std::int64_t n_local() const { return n_local_; }
  // T + 1: lengths 0..T occur somewhere (the same on every rank).
  int n_lengths() const { return n_lengths_; }

  // Sets f_0..f_{n_lengths-1} (missing entries count as zero). Local, but every rank must pass the same f.
  void set_f(std::span<const double> f);
  const std::vector<double>& f() const { return f_; }

  // Phi C: c holds the rows of this rank's nodes as columns of Phi.
  Eigen::MatrixXd times(const Eigen::MatrixXd& c) const;
  // Phi^T V: v holds this rank's rows; the result holds this rank's nodes as columns.
  Eigen::MatrixXd transpose_times(const Eigen::MatrixXd& v) const;
  // The length-resolved bilinear forms behind gradients with respect to f: out(i, t) =
  // sum_k v(i, k) (M_t C)(i, k) for this rank's rows i (n_local x n_lengths). Sum over i gives v^T M_t c.
  Eigen::MatrixXd length_resolved_forms(const Eigen::MatrixXd& v, const Eigen::MatrixXd& c) const;
  // ||Phi_i||^2 of this rank's rows (the diagonal of Phi Phi^T).
  Eigen::VectorXd row_squared_norms() const;

 private:
  // One side of the storage: per local row (or column), pairs (other node, Phi value) in canonical order of
  // the other node; each pair owns a run of (t, M_t value) entries in ascending t.
  struct Side {
    std::vector<std::int64_t> pair_ptr;    // n_local + 1
    std::vector<std::int64_t> pair_slot;   // the other node: local index, or n_local + its position in `remote`
    std::vector<std::int64_t> entry_ptr;   // pairs + 1
    std::vector<std::int32_t> entry_length;
    std::vector<double> entry_value;
    std::vector<double> pair_phi;          // sum_t f_t M_t of each pair
    std::vector<std::int64_t> remote;      // sorted global indices of the other nodes owned elsewhere
  };
  // A block with this rank's rows followed by the fetched rows of side.remote (row-major, b per row).
  std::vector<double> with_remote_rows(const Side& side, const Eigen::MatrixXd& local) const;
  Eigen::MatrixXd apply(const Side& side, const Eigen::MatrixXd& x) const;

  const DistributedGraph* graph_;
  std::int64_t n_local_ = 0;
  int n_lengths_ = 0;
  std::vector<double> f_;
  Side rows_;     // Phi by rows (this rank's start nodes)
  Side columns_;  // Phi by columns (this rank's nodes as visited nodes)
};

}  // namespace graphrf
