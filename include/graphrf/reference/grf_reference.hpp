#pragma once
// `grf --reference`: the error ||estimate - M||_F / ||M||_F of a GRF run's kernel estimate, against the exact
// kernel M from a dense eigendecomposition on rank 0 (up to --dense-reference-max nodes, M kept for /kernel/exact)
// or from the exact rows of M for a sample of nodes (sampled_kernel_reference.hpp), with its standard error.
#include <Eigen/Dense>
#include <cstdint>

#include "graphrf/core/report.hpp"
#include "graphrf/grf/grf_run.hpp"
#include "graphrf/io/h5_output.hpp"
#include "graphrf/reference/reference_plan.hpp"
#include "graphrf/reference/sampled_error.hpp"

namespace graphrf {

struct GrfReference {
  bool dense = false;
  SampledError sampled;   // the sampled reference's error (value, standard error, samples)
  Eigen::MatrixXd exact;  // dense: M on rank 0 (empty elsewhere)
  // kernel_error, reference_sampled, and when sampled kernel_error_se and reference_samples.
  Report report;
};

// N x N double matrices rank 0 holds for grf's dense reference (0 when there is none or it is sampled): what
// GrfRunOptions::dense_reference_matrices counts before walking.
double grf_dense_reference_matrices(const ReferenceOptions& reference, std::int64_t n_nodes);

// The error of the run's kernel estimate; logs the plan and the error. Collective.
GrfReference grf_kernel_reference(const DistributedGraph& g, const GrfResult& result, const GrfRunOptions& options,
                                  const ReferenceOptions& reference, const Log& log);

// /kernel/exact (dense reference) and the report's attributes. Collective.
void write_grf_reference(H5Output& out, const DistributedGraph& g, const GrfReference& reference);

}  // namespace graphrf
