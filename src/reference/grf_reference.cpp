#include "graphrf/reference/grf_reference.hpp"

#include "graphrf/core/timer.hpp"
#include "graphrf/graph/canonical_order.hpp"
#include "graphrf/grf/dense_gather.hpp"
#include "graphrf/grf/dense_reference.hpp"
#include "graphrf/io/report_output.hpp"
#include "graphrf/reference/sampled_kernel_reference.hpp"

namespace graphrf {

double grf_dense_reference_matrices(const ReferenceOptions& reference, std::int64_t n_nodes) {
  return reference.enabled && dense_reference(reference, n_nodes) ? kDenseReferenceMatrices : 0.0;
}

GrfReference grf_kernel_reference(const DistributedGraph& g, const GrfResult& result, const GrfRunOptions& options,
                                  const ReferenceOptions& reference, const Log& log) {
  const Communicator& comm = *g.comm;
  GrfReference r;
  r.dense = dense_reference(reference, g.n_global());
  Timer timer;
  log.info("plan        reference " + reference_cost(reference, g.n_global()));
  double error = -1;
  if (r.dense) {
    const Eigen::MatrixXd w = gather_dense_w(g, options.walk);
    const Eigen::MatrixXd estimate = dense_kernel_estimate(g, result.run);
    if (comm.is_root()) {
      r.exact = kernel_matrix_exact(options.kernel, w);
      error = relative_frobenius_error(estimate, r.exact);
    }
    comm.broadcast(error);
    log.info("reference   ||estimate - M||_F / ||M||_F = " + fmt(error, 6) + " (exact M by dense eigendecomposition, " +
             fmt(timer.seconds(), 2) + " s)");
  } else {
    const SampledKernelColumns columns = sampled_kernel_columns(g, options.kernel, options.walk, reference.samples, options.walk.seed);
    r.sampled = sampled_column_error(g, sampled_estimate_columns(g, result.run, columns.sample), columns.exact);
    error = r.sampled.value;
    log.info("reference   ||estimate - M||_F / ||M||_F = " + fmt(error, 6) + " +- " + fmt(r.sampled.standard_error, 6) +
             " (standard error; exact rows of M for " + std::to_string(r.sampled.samples) + " of " +
             std::to_string(g.n_global()) + " nodes by Chebyshev degree " + std::to_string(columns.degree) +
             ", truncation <= " + sci(columns.truncation_bound) + ", " + fmt(comm.max(timer.seconds()), 2) + " s)");
  }
  r.report.number("kernel_error", error, 8, {}, {{"/kernel", "relative_frobenius_error"}, {"/", "kernel_relative_frobenius_error"}})
      .count("reference_sampled", r.dense ? 0 : 1);
  if (!r.dense)
    r.report.number("kernel_error_se", r.sampled.standard_error, 8, {}, {{"/kernel", "relative_frobenius_error_standard_error"}})
        .count("reference_samples", r.sampled.samples, {}, {{"/kernel", "reference_samples"}});
  return r;
}

void write_grf_reference(H5Output& out, const DistributedGraph& g, const GrfReference& reference) {
  if (reference.dense) write_node_dense_square(out, CanonicalOrder(g), "/kernel/exact", scatter_dense_rows(g, reference.exact));
  write_report(out, reference.report);
}

}  // namespace graphrf
