#include "graphrf/gp/gp_output.hpp"

#include <span>

#include "graphrf/graph/canonical_order.hpp"
#include "graphrf/graph/graph_output.hpp"
#include "graphrf/io/report_output.hpp"

namespace graphrf {

namespace {

template <class T>
std::vector<T> column_values(const Eigen::VectorXd& v) {
  std::vector<T> out(static_cast<size_t>(v.size()));
  for (Eigen::Index i = 0; i < v.size(); ++i) out[static_cast<size_t>(i)] = static_cast<T>(v(i));
  return out;
}

}  // namespace

void write_gp(H5Output& out, const DistributedGraph& g, const GpRun& run) {
  const GpPrediction& prediction = run.prediction;
  // NaN marks what is not there: y of unobserved nodes, variances not estimated.
  for (const char* dataset : {"/gp/y", "/gp/variance", "/gp/sample_variance"}) out.allow_missing_values(dataset);
  const CanonicalOrder order(g);
  write_node_rows(out, order, "/nodes/id", g.original_id);
  write_node_names(out, g);
  write_node_rows(out, order, "/gp/node_id", g.original_id);
  write_node_rows(out, order, "/gp/mean", column_values<double>(prediction.mean));
  write_node_rows(out, order, "/gp/variance", column_values<double>(run.variance()));
  write_node_rows(out, order, "/gp/y", column_values<double>(run.observations.y));
  write_node_rows(out, order, "/gp/split", run.observations.role);
  if (run.samples > 0) {
    const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> samples = prediction.samples;
    write_node_rows(out, order, "/gp/samples", std::span<const double>(samples.data(), static_cast<size_t>(samples.size())),
                    {static_cast<std::uint64_t>(run.samples)});
  }
  if (run.exact_variance) write_node_rows(out, order, "/gp/sample_variance", column_values<double>(prediction.variance));
  out.write_replicated("/gp/theta/f", run.f);
  out.set_attribute("/gp/theta", "learn", gp_learn_name(run.learn));
  // theta refers to the standardised targets (y - y_mean) / y_scale; y_mean 0 and y_scale 1 with --no-normalize-y.
  out.set_attribute("/gp/theta", "normalize_y", static_cast<std::int64_t>(run.normalize_y));
  out.set_attribute("/gp/theta", "y_mean", run.scaling.mean);
  out.set_attribute("/gp/theta", "y_scale", run.scaling.scale);
  const LearningTrace& trace = run.trace;
  if (!trace.lml.empty()) {
    out.write_replicated("/gp/theta/trace/lml", trace.lml);
    out.write_replicated("/gp/theta/trace/gradient_norm", trace.gradient_norm);
    out.write_replicated("/gp/theta/trace/sigma_f", trace.sigma_f);
    out.write_replicated("/gp/theta/trace/beta", trace.beta);
    out.write_replicated("/gp/theta/trace/sigma_n", trace.sigma_n);
    out.write_replicated("/gp/theta/trace/cg_iterations", std::vector<std::int64_t>(trace.cg_iterations.begin(), trace.cg_iterations.end()));
    out.write_replicated("/gp/theta/trace/parameters", trace.parameters,
                         {static_cast<std::uint64_t>(trace.lml.size()), static_cast<std::uint64_t>(run.n_parameters)});
  }
  write_report(out, run.report);  // theta, /gp/metrics and /gp/reference
}

}  // namespace graphrf
