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
// GP regression only ever needs the transpose on the training rows x (Phi_x^T v with v zero elsewhere), and
// products restricted to them (Phi_x C): restrict_rows(mask) builds those sides for the rows where mask != 0
// only (a tenth of the rows when 10% of the nodes are observed), so a CG product touches the training rows'
// nonzeros and fetches only the remote rows they need, instead of all of Phi's. Phi C over all rows (prior
// samples, the posterior mean at every node) keeps the full row side.
// Blocks are n_local x b (local row order, column-major); every member taking or returning one is collective.
#include <Eigen/Dense>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "graphrf/graph/distributed_graph.hpp"
#include "graphrf/grf/grf_matrix.hpp"

namespace graphrf {

class GrfFeatureOperator {
 public:
  // Collective. `m` holds this rank's rows of the length-resolved walks (compute_grf's by_length). Builds the
  // row side only: times() works at once, the products with Phi_S and Phi_S^T after restrict_rows.
  GrfFeatureOperator(const DistributedGraph& g, const LengthResolvedGrf& m);

  // Collective: S = this rank's rows where mask != 0 (n_local entries; all ones for the whole of Phi). Builds
  // S's row and column sides from the row side, reweighted by the current f.
  void restrict_rows(const Eigen::VectorXd& mask);

  const DistributedGraph& graph() const { return *graph_; }
  std::int64_t n_local() const { return n_local_; }
  // T + 1: lengths 0..T occur somewhere (the same on every rank).
  int n_lengths() const { return n_lengths_; }

  // Sets f_0..f_{n_lengths-1} (missing entries count as zero). Local, but every rank must pass the same f.
  void set_f(std::span<const double> f);
  const std::vector<double>& f() const { return f_; }

  // Phi C: c holds the rows of this rank's nodes as columns of Phi.
  Eigen::MatrixXd times(const Eigen::MatrixXd& c) const;
  // Phi_S C: rows outside S are zero.
  Eigen::MatrixXd subset_times(const Eigen::MatrixXd& c) const;
  // Phi_S^T V: v holds this rank's rows (rows outside S are ignored); the result holds this rank's nodes as
  // columns.
  Eigen::MatrixXd transpose_times(const Eigen::MatrixXd& v) const;
  // The length-resolved bilinear forms behind gradients with respect to f: out(i, t) =
  // sum_k v(i, k) (M_t C)(i, k) for this rank's rows i in S, zero elsewhere (n_local x n_lengths). Sum over i
  // gives v_S^T M_t c.
  Eigen::MatrixXd length_resolved_forms(const Eigen::MatrixXd& v, const Eigen::MatrixXd& c) const;
  // ||Phi_i||^2 of this rank's rows (the diagonal of Phi Phi^T).
  Eigen::VectorXd row_squared_norms() const;

 private:
  // One side of the storage: per local row (or column), pairs (other node, Phi value) in canonical order of
  // the other node; each pair owns a run of (t, M_t value) entries in ascending t.
  struct Side {
    std::vector<std::int64_t> pair_ptr;    // n_local + 1
    // The other node: its position in `local_rows`, or local_rows.size() + its position in `remote`. A product
    // gathers only these rows of its block (Phi_S touches a few of them when S is small).
    std::vector<std::int64_t> pair_slot;
    std::vector<std::int64_t> entry_ptr;   // pairs + 1
    std::vector<std::int32_t> entry_length;
    std::vector<double> entry_value;
    // sum_t f_t M_t of each pair, computed when a product first needs it after set_f (learning reweights only
    // the sides of S at each step, not the whole of Phi).
    mutable std::vector<double> pair_phi;
    mutable std::uint64_t weighted_generation = 0;
    std::vector<std::int64_t> local_rows;  // sorted local indices of the other nodes owned by this rank
    std::vector<std::int64_t> remote;      // sorted global indices of the other nodes owned elsewhere
    GhostExchange fetch;                   // brings the rows of `remote` (shared memory inside a host)
    std::int64_t other(std::int64_t slot, std::int64_t first) const {
      const auto n_used = static_cast<std::int64_t>(local_rows.size());
      return slot < n_used ? first + local_rows[static_cast<size_t>(slot)] : remote[static_cast<size_t>(slot - n_used)];
    }
  };
  // The rows a side's pairs read (row-major, b per row, indexed by pair_slot): its local rows gathered from the
  // block, then the fetched rows of side.remote.
  std::unique_ptr<double[]> gather_rows(const Side& side, const Eigen::MatrixXd& local) const;
  Eigen::MatrixXd apply(const Side& side, const Eigen::MatrixXd& x) const;

  const DistributedGraph* graph_;
  std::int64_t n_local_ = 0;
  int n_lengths_ = 0;
  std::vector<double> f_;
  std::uint64_t f_generation_ = 0;  // set_f calls so far (sides are weighted when their count lags)
  void require_subset() const;  // throws Error before restrict_rows
  const Side& weighted(const Side& side) const;  // side with pair_phi for the current f
  const Side& subset_rows() const {
    require_subset();
    return subset_is_all_ ? rows_ : subset_rows_;
  }

  Side rows_;         // Phi by rows (this rank's start nodes)
  Side subset_rows_;  // Phi_S by rows (empty while S is every row: rows_ serves)
  Side columns_;      // Phi_S by columns (this rank's nodes as visited nodes)
  bool subset_built_ = false;
  bool subset_is_all_ = false;
};

}  // namespace graphrf
