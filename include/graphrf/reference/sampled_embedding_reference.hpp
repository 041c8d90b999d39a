#pragma once
// ||Phi Phi^T - h(L)||_F / ||h(L)||_F for a node embedding Phi (random wavelet features) on graphs of any
// size, from the exact columns of h(L) for a uniform sample of nodes (Chebyshev expansion on the
// distributed Laplacian) and the matching columns Phi Phi_i^T.
#include <functional>

#include "graphrf/graph/distributed_graph.hpp"
#include "graphrf/mpi/distributed_operator.hpp"
#include "graphrf/reference/sampled_error.hpp"

namespace graphrf {

struct SampledEmbeddingError {
  SampledError frobenius;
  int degree = 0;               // Chebyshev degree of the exact columns
  double truncation_bound = 0;  // bound on their 2-norm error
};

// embedding_local: this rank's rows of Phi (n_local x c); laplacian: the graph's operator (normalised or
// combinatorial) with spectrum in [0, lambda_max]. Collective.
SampledEmbeddingError sampled_embedding_error(const DistributedGraph& g, const DistributedOperator& laplacian,
                                              double lambda_max, const Eigen::MatrixXd& embedding_local,
                                              const std::function<double(double)>& h, std::int64_t samples,
                                              std::uint64_t seed);

}  // namespace graphrf
