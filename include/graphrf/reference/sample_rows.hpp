#pragma once
// Where the sampled nodes of a sampled reference live, and their rows copied to every rank (a sampled
// reference compares s rows of an N x N matrix, each rank contributing the entries of its own columns).
#include <Eigen/Dense>

#include <cstdint>
#include <vector>

#include "graphrf/graph/distributed_graph.hpp"
#include "graphrf/grf/grf_matrix.hpp"

namespace graphrf {

struct NodeSample {
  std::vector<std::int64_t> canonical;  // ascending canonical indices of the sampled nodes
  std::vector<std::int64_t> local_row;  // per sample: this rank's local row of the node, or -1
  std::int64_t size() const { return static_cast<std::int64_t>(canonical.size()); }
};

// Locates the given canonical indices among this rank's rows.
NodeSample locate_sample(const DistributedGraph& g, std::vector<std::int64_t> canonical);

// This rank's rows of the one-hot block: column c is e_(node c) (n_local x s).
Eigen::MatrixXd one_hot_columns(const DistributedGraph& g, const NodeSample& sample);

// The sampled rows of a row-distributed dense matrix (local rows n_local x c), s x c on every rank.
// Collective; exact (one rank contributes each entry, the others add zeros).
Eigen::MatrixXd replicate_sampled_rows(const Communicator& comm, const NodeSample& sample,
                                       const Eigen::Ref<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>& local);

// The sampled rows of distributed sparse rows, on every rank (s rows, columns as in `rows`). Collective.
SparseRows replicate_sampled_rows(const Communicator& comm, const NodeSample& sample, const SparseRows& rows);

// Dot product of two sparse rows with ascending columns.
double sparse_dot(const SparseRows& a, std::int64_t row_a, const SparseRows& b, std::int64_t row_b);
// Entry (row, column) of sparse rows with ascending columns (0 when absent).
double sparse_entry(const SparseRows& a, std::int64_t row, std::int64_t column);

}  // namespace graphrf
