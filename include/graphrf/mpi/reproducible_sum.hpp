#pragma once
// Reproducible sums over the rows of a row-distributed N x b block (X^T Y, X^T X, ||X||_F^2): the result
// has the same bits at any rank count and for any assignment of rows to ranks.
//
// Why not MPI_Allreduce(MPI_SUM)? It adds the ranks' partial sums in an order that depends on the rank count
// (and on the MPI library's algorithm), so Gram matrices and norms differ in the last bits between runs at
// 1 and 4 ranks. CholeskyQR amplifies those differences by the condition number of the block, and the
// eigencount is rounded and the lambda_K dichotomy branches on it, so one flipped bit can change lambda_K
// and with it the whole embedding. A fixed order of summation removes the problem at its root.
//
// Scheme (the order of every floating-point addition is fixed by N and the row keys, never by the ranks):
//  1. Rows are identified by their key (the node's original id; the keys are a permutation of 0..N-1) and
//     grouped into fixed blocks of kBlockRows = 256 consecutive keys: block j holds keys [256 j, 256 j + 256).
//  2. Every block has one home rank. Rows living elsewhere are sent to their block's home (one alltoallv of
//     the rows themselves, not of b x b contributions). The home copies each block into a contiguous matrix
//     in key order and computes its contribution with one dense product (BLAS-3 for Gram matrices). That
//     matrix is the same at any rank count, so the contribution has the same bits.
//  3. Block contributions are added up a fixed binary tree over block indices: node (l, i) covers blocks
//     [i 2^l, (i+1) 2^l) and its value is value(l-1, 2i) + value(l-1, 2i+1). A node's home is the home of its
//     first block. Homes are contiguous ranges of blocks, so at each level a rank sends at most one message
//     and receives at most one: ceil(log2(N/256)) rounds of point-to-point messages of the result's size.
//  4. The root's home broadcasts the result.
// Homes: if the ranks hold contiguous key ranges in rank order (keys = global rows, the usual layout), block
// j's home is the rank holding key 256 j, so only rows of blocks straddling a rank boundary move (< 256 per
// boundary). Otherwise (rows permuted by a partitioner) homes are contiguous block ranges proportional to the
// ranks' row counts and most rows move once per reduction: the price of an answer independent of the
// partition. Either way the choice of homes changes who computes, never what is computed.
//
// Bitwise reproducibility assumes the same binary on every rank. If the code is built with FMA instructions
// (e.g. -march=native), also pass -ffp-contract=off so vectorised and scalar loop paths round alike.
#include <Eigen/Dense>

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "graphrf/mpi/communicator.hpp"
#include "graphrf/mpi/distributed_operator.hpp"

namespace graphrf {

class RowBlockReducer {
 public:
  static constexpr std::int64_t kBlockRows = 256;

  // Collective. row_keys are this rank's keys, in local row order; over all ranks they must be a permutation
  // of 0..n_global-1 (checked: every rank throws the same Error otherwise).
  RowBlockReducer(const Communicator& comm, std::int64_t n_global, std::span<const std::int64_t> row_keys);
  explicit RowBlockReducer(const DistributedOperator& op);

  // All collective; every rank gets the same bits.
  Eigen::MatrixXd cross(const Eigen::MatrixXd& x_local, const Eigen::MatrixXd& y_local) const;  // X^T Y
  Eigen::MatrixXd gram(const Eigen::MatrixXd& x_local) const;  // X^T X, exactly symmetric
  double squared_norm(const Eigen::MatrixXd& x_local) const;   // ||X||_F^2
  std::vector<double> column_sums(const Eigen::MatrixXd& x_local) const;  // 1^T X (per-row quantities summed)

  const Communicator& comm() const { return *comm_; }
  std::int64_t n_global() const { return n_global_; }
  std::int64_t n_local() const { return n_local_; }

 private:
  // Computes one block's contribution (m doubles) from that block's rows of each input, in key order.
  using Leaf = std::function<void(const std::vector<Eigen::MatrixXd>& blocks, double* out)>;
  std::vector<double> reduce(const std::vector<const Eigen::MatrixXd*>& locals, std::size_t m,
                             const Leaf& leaf) const;
  int home_of_block(std::int64_t block) const;

  const Communicator* comm_;
  std::int64_t n_global_ = 0;
  std::int64_t n_local_ = 0;
  std::int64_t n_blocks_ = 0;
  std::vector<std::int64_t> block_begin_;  // size P+1: rank r is the home of blocks [block_begin_[r], block_begin_[r+1])
  std::vector<std::int64_t> send_rows_;    // local rows to send, grouped by destination rank, in key order
  Counts send_rows_per_rank_;
  Counts recv_rows_per_rank_;
  std::vector<std::int64_t> recv_slots_;   // per received row: (block - first home block) * 256 + key % 256
  std::vector<std::int64_t> keep_rows_;    // local rows whose block is homed here...
  std::vector<std::int64_t> keep_slots_;   // ...and their slots
};

}  // namespace graphrf
