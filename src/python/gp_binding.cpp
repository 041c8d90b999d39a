// GP regression for Python: one run_gp_regression on the graph with the options of `graphrf gp` (checked as the
// CLI checks them, with its messages), its per-node results in canonical node order (the numbers of /gp/mean,
// /gp/variance, /gp/y, /gp/split, /gp/samples; on a graph over several ranks, this rank's block of them) and the
// learned hyperparameters and test metrics.
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "graphrf/graph/canonical_order.hpp"
#include "graphrf/grf/combinatorial_laplacian.hpp"
#include "graphrf/gp/gp_run.hpp"

namespace graphrf::python {

namespace {

// gp_options_from of the CLI.
GpRunOptions gp_options(const py::dict& o, const KernelSpec& kernel, const WalkOptions& walk) {
  GpRunOptions g;
  g.kernel = kernel;
  g.walk = walk;
  if (o["observations"].is_none() == o["synthetic"].is_none())
    throw InputError("--observations: give either --observations FILE or --synthetic q");
  if (!o["observations"].is_none()) g.observations = o["observations"].cast<std::string>();
  g.sigma_f = o["sigma_f"].cast<double>();
  g.sigma_n = o["sigma_n"].cast<double>();
  if (!o["synthetic"].is_none()) {
    SyntheticGp& truth = g.synthetic;
    truth.share = o["synthetic"].cast<double>();
    if (!(truth.share > 0 && truth.share <= 1)) throw InputError("--synthetic: expected a share in (0, 1]");
    truth.sigma_f = g.sigma_f, truth.beta = kernel.beta, truth.sigma_n = g.sigma_n;
    if (!o["synthetic_theta"].is_none()) {
      const auto theta = o["synthetic_theta"].cast<std::vector<double>>();
      if (theta.size() != 3 || !(theta[0] > 0 && theta[1] > 0 && theta[2] > 0))
        throw InputError("--synthetic-theta: expected three positive numbers sigma_f,beta,sigma_n");
      truth.sigma_f = theta[0], truth.beta = theta[1], truth.sigma_n = theta[2];
    }
  }
  if (!o["test"].is_none()) g.split.test_file = o["test"].cast<std::string>();
  g.split.test_fraction = o["test_fraction"].cast<double>();
  if (!(g.split.test_fraction >= 0 && g.split.test_fraction < 1)) throw InputError("--test-fraction: expected a share in [0, 1)");
  g.split.split_seed = o["split_seed"].cast<std::uint64_t>();
  g.learn = parse_gp_learn(o["learn"].cast<std::string>());
  g.schedule.iterations = g.learn == GpLearn::none ? 0 : o["iterations"].cast<int>();
  g.schedule.learning_rate = o["learning_rate"].cast<double>();
  if (g.schedule.iterations < 0) throw InputError("--iterations: must be >= 0");
  if (!(g.schedule.learning_rate > 0)) throw InputError("--learning-rate: must be > 0");
  g.lml.probes = o["probes"].cast<int>();
  if (g.lml.probes < 0) throw InputError("--probes: must be >= 0");
  g.lml.seed = walk.seed;
  g.lml.cg.tolerance = o["cg_tolerance"].cast<double>();
  g.lml.cg.max_iterations = o["cg_max_iterations"].cast<int>();
  if (!(g.lml.cg.tolerance > 0 && g.lml.cg.tolerance < 1)) throw InputError("--cg-tolerance: expected a value in (0, 1)");
  if (g.lml.cg.max_iterations < 1) throw InputError("--cg-max-iterations: must be >= 1");
  g.prediction.samples = o["samples"].cast<int>();
  if (g.prediction.samples < 0) throw InputError("--samples: must be >= 0");
  g.prediction.exact_variance = o["exact_variance"].cast<bool>();
  if (g.prediction.samples == 0 && !g.prediction.exact_variance)
    throw InputError("--samples: 0 samples leave no variance; give --samples >= 1 or --exact-variance");
  g.prediction.seed = walk.seed;
  g.prediction.cg = g.lml.cg;
  g.normalize_y = o["normalize_y"].cast<bool>();
  g.exact_variance_max_tests = 5000;  // as the CLI: exact variances at up to 5000 test nodes
  return g;
}

std::vector<double> values_of(const Eigen::VectorXd& v) { return std::vector<double>(v.data(), v.data() + v.size()); }

py::dict gp(const GraphHandle& h, const py::dict& kernel_options, const py::dict& walk_option_values, const py::dict& gp_values) {
  const DistributedGraph& g = *h.graph;
  if (g.report.directed) throw InputError("gp: the graph was loaded directed; the GRF kernel needs an undirected graph");
  WalkOptions walk = walk_options(walk_option_values);
  KernelSpec kernel = kernel_spec(kernel_options, walk.weights);
  GpRunOptions options = gp_options(gp_values, kernel, walk);
  py::dict out;
  std::vector<double> mean, variance, y, samples;
  std::vector<std::int32_t> split;
  GpRun run;
  std::int64_t first_row = 0, rows_here = 0;
  CallWarnings warnings;
  {
    py::gil_scoped_release unlocked;
    bind_combinatorial_laplacian(g, options.walk, options.kernel);
    run = run_gp_regression(g, options, warnings.log(*g.comm));
    const CanonicalOrder order(g);
    first_row = order.blocks().first(g.comm->rank());
    rows_here = order.block_rows();
    mean = order.route_rows<double>(values_of(run.prediction.mean), 1);
    variance = order.route_rows<double>(values_of(run.variance()), 1);
    y = order.route_rows<double>(values_of(run.observations.y), 1);
    split = order.route_rows<std::int32_t>(run.observations.role, 1);
    if (run.samples > 0) {
      const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> rows = run.prediction.samples;
      samples = order.route_rows<double>(std::span<const double>(rows.data(), static_cast<std::size_t>(rows.size())),
                                         static_cast<std::size_t>(run.samples));
    }
  }
  warnings.issue();
  out["mean"] = to_numpy(std::move(mean));
  out["variance"] = to_numpy(std::move(variance));
  out["y"] = to_numpy(std::move(y));
  out["split"] = to_numpy(std::move(split));
  out["samples"] = to_numpy(std::move(samples)).reshape({rows_here, static_cast<std::int64_t>(run.samples)});
  out["f"] = to_numpy(std::vector<double>(run.f));
  out["sigma_f"] = run.sigma_f;
  out["beta"] = run.beta;
  out["sigma_n"] = run.sigma_n;
  out["y_mean"] = run.scaling.mean;
  out["y_scale"] = run.scaling.scale;
  out["n_test"] = run.metrics.n_test;
  out["rmse"] = run.metrics.rmse;
  out["nlpd"] = run.metrics.nlpd;
  out["coverage"] = run.metrics.coverage;
  out["first_row"] = first_row;  // the canonical index of this rank's first row
  return out;
}

}  // namespace

void bind_gp(py::module_& m) {
  m.def("gp", &gp, py::arg("graph"), py::arg("kernel"), py::arg("walk"), py::arg("gp"));
}

}  // namespace graphrf::python
