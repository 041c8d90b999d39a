#pragma once
// The error of a GRF kernel estimate against the exact kernel M, from the exact rows of M for a uniform
// sample of nodes (M = h(L) with h the kernel as a function of the eigenvalues of the normalised Laplacian, or
// of L = D - A under --weights combinatorial; its columns computed by a Chebyshev expansion on the distributed operator): works on graphs of any size, at
// the cost of (Chebyshev degree) sparse products with an N x s block.
#include <cstdint>

#include "graphrf/graph/distributed_graph.hpp"
#include "graphrf/grf/grf_pipeline.hpp"
#include "graphrf/reference/sample_rows.hpp"
#include "graphrf/reference/sampled_error.hpp"

namespace graphrf {

struct SampledKernelColumns {
  NodeSample sample;
  Eigen::MatrixXd exact;  // this rank's rows of the sampled columns of M (n_local x s)
  int degree = 0;
  double truncation_bound = 0;
};

// Exact columns of M for `samples` nodes drawn from `seed` (all nodes when samples >= N). For normalised and
// combinatorial weights (kernel bound by bind_combinatorial_laplacian); InputError naming --reference for raw.
// Collective.
SampledKernelColumns sampled_kernel_columns(const DistributedGraph& g, const KernelSpec& kernel, const WalkOptions& walk,
                                            std::int64_t samples, std::uint64_t seed);

// This rank's rows of the sampled columns of the estimate (Phi Phi^T, (Phi1 Phi2^T + Phi2 Phi1^T) / 2 or Phi).
Eigen::MatrixXd sampled_estimate_columns(const DistributedGraph& g, const GrfRun& run, const NodeSample& sample);

// ||estimate - M||_F / ||M||_F from the sampled columns (sums in a fixed order: same bits at any rank count).
SampledError sampled_column_error(const DistributedGraph& g, const Eigen::MatrixXd& estimate_local,
                                  const Eigen::MatrixXd& exact_local);

}  // namespace graphrf
