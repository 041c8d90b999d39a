#pragma once
// Dense copies of distributed matrices on rank 0, for --reference checks on small graphs. Rows and columns
// use graphrf's global indices.
#include <Eigen/Dense>
#include <cstdint>

#include "graphrf/graph/distributed_graph.hpp"
#include "graphrf/grf/grf_matrix.hpp"
#include "graphrf/walks/walk_options.hpp"

namespace graphrf {

// The walk's W (normalised, scale * A, or (A + diag(d_max - d_i)) / d_max) as a dense matrix on rank 0; an empty matrix elsewhere.
Eigen::MatrixXd gather_dense_w(const DistributedGraph& g, const WalkOptions& options);
// Sparse rows (this rank's rows start at first_row) as a dense n x n matrix on rank 0; empty elsewhere.
Eigen::MatrixXd gather_dense_rows(const Communicator& comm, const SparseRows& rows, std::int64_t first_row, std::int64_t n);
// This rank's block of rows of a dense n x c matrix (ranks hold consecutive row ranges in rank order),
// assembled on rank 0; an empty matrix elsewhere.
Eigen::MatrixXd gather_dense_block(const Communicator& comm,
                                   const Eigen::Ref<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>& local,
                                   std::int64_t n);
// Rank 0's dense n x n matrix cut into the row blocks the ranks own (row-major), for writing.
std::vector<double> scatter_dense_rows(const DistributedGraph& g, const Eigen::MatrixXd& dense_on_root);

}  // namespace graphrf
