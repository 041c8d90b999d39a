#pragma once
// Errors of GRF-masked attention against the references of `graphrf attention --reference` on graphs of any
// size: the reference outputs (softmax, M-masked softmax, M-masked linear, the estimate-masked linear
// attention) are computed exactly for the sampled rows only, from the sampled columns of M (M symmetric, so
// column i is row i) and of the kernel estimate; each rank adds the terms of its own keys and values. The
// feature kernel references (unmasked and M-masked) use the kernel the feature map estimates (feature_kernel.hpp).
#include "graphrf/attention/feature_kernel.hpp"
#include "graphrf/attention/masked_attention.hpp"
#include "graphrf/graph/distributed_graph.hpp"
#include "graphrf/reference/sample_rows.hpp"
#include "graphrf/reference/sampled_error.hpp"

namespace graphrf {

struct SampledAttentionErrors {
  SampledError softmax, masked_softmax, masked_linear, grf_dense, linear;
  SampledError kernel, masked_kernel;  // vs the feature map's own kernel, unmasked and M-masked
};

// One head; every matrix holds this rank's rows. exact_columns and estimate_columns are n_local x s.
// Collective; sums run in a fixed order (same bits at any rank count).
SampledAttentionErrors sampled_attention_errors(const DistributedGraph& g, const NodeSample& sample, const RowMatrix& q,
                                                const RowMatrix& k, const RowMatrix& v, const RowMatrix& phi_q,
                                                const RowMatrix& phi_k, const RowMatrix& output, const RowMatrix& linear,
                                                const Eigen::MatrixXd& exact_columns, const Eigen::MatrixXd& estimate_columns,
                                                const FeatureKernel& kernel);

}  // namespace graphrf
