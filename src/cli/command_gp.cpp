// `graphrf gp`: Gaussian-process regression on the nodes of a graph with a GRF kernel K = sigma_f^2 M(beta)
// (gp/gp_run.hpp), written in canonical node order (gp/gp_output.hpp).
#include <cmath>
#include <sstream>

#include "graphrf/cli/commands.hpp"
#include "graphrf/core/timer.hpp"
#include "graphrf/gp/gp_output.hpp"
#include "graphrf/gp/gp_run.hpp"
#include "graphrf/io/h5_output.hpp"
#include "graphrf/io/report_output.hpp"
#include "graphrf/mpi/run_summary.hpp"

namespace graphrf {

namespace {

struct GpCommandOptions {
  GraphArguments graph;
  KernelArguments kernel;
  WalkArguments walk;
  std::optional<std::string> observations, synthetic_theta, test, out;
  std::optional<double> synthetic;
  double test_fraction = 0.2, sigma_f = 1.0, sigma_n = 0.1, learning_rate = 0.05, cg_tolerance = 1e-6;
  std::uint64_t split_seed = 1;
  bool no_normalize_y = false, exact_variance = false, reference = false;
  std::string learn;
  int iterations = 50, probes = 16, cg_max_iterations = 1000, samples = 64;
};

void declare_gp_options(po::options_description& desc, GpCommandOptions& o) {
  add_graph_options(desc, o.graph);
  add_kernel_options(desc, o.kernel);
  add_walk_options(desc, o.walk);
  desc.add_options()
      ("observations", optional_value(&o.observations), "observed values: CSV `node,y` with a header, or HDF5 /obs/id, /obs/y")
      ("synthetic", optional_value(&o.synthetic),
       "instead of --observations: observe a share q of the nodes of one GRF-GP sample drawn with --synthetic-theta")
      ("synthetic-theta", optional_value(&o.synthetic_theta), "sigma_f,beta,sigma_n of --synthetic data (default: the starting values)")
      ("test", optional_value(&o.test), "file of test node ids (one per line); each must be observed")
      ("test-fraction", double_value(&o.test_fraction, 0.2), "without --test: share of observations held out for testing")
      ("split-seed", po::value(&o.split_seed)->default_value(1), "seed of the random test split")
      ("sigma-f", po::value(&o.sigma_f)->default_value(1.0), "signal scale: K = sigma_f^2 M(beta) (starting value)")
      ("sigma-n", double_value(&o.sigma_n, 0.1), "observation noise standard deviation (starting value)")
      ("no-normalize-y", po::bool_switch(&o.no_normalize_y),
       "fit the targets as given (zero-mean prior); by default the GP is fitted to (y - mean) / sd of the training "
       "targets, as scikit-learn's normalize_y, and sigma_f, sigma_n and the LML refer to those; outputs are in y's units")
      ("learn", po::value(&o.learn)->default_value("hyper"), "none | hyper (sigma_f, beta, sigma_n) | f (f_0..f_T, sigma_n)")
      ("iterations", po::value(&o.iterations)->default_value(50), "Adam iterations")
      ("learning-rate", double_value(&o.learning_rate, 0.05), "Adam step size (cosine-decayed to a tenth)")
      ("probes", po::value(&o.probes)->default_value(16), "Hutchinson/Lanczos probes per iteration (0: exact, one per training node)")
      ("cg-tolerance", double_value(&o.cg_tolerance, 1e-6), "relative residual at which CG stops")
      ("cg-max-iterations", po::value(&o.cg_max_iterations)->default_value(1000), "CG iteration limit")
      ("samples", po::value(&o.samples)->default_value(64), "pathwise posterior samples (variance estimate)")
      ("exact-variance", po::bool_switch(&o.exact_variance), "also the exact GRF-GP variance at the test nodes (one CG solve each)")
      ("reference", po::bool_switch(&o.reference), "dense exact-kernel GP (same and own learned hyperparameters) and KL (N <= 5000)")
      ("out", optional_value(&o.out), "HDF5 output (without it nothing is written)");
}

GpRunOptions gp_options_from(const GpCommandOptions& c, const KernelSpec& kernel, const WalkOptions& walk) {
  GpRunOptions o;
  o.kernel = kernel;
  o.walk = walk;
  if (c.observations.has_value() == c.synthetic.has_value())
    throw InputError("--observations: give either --observations FILE or --synthetic q");
  if (c.observations) o.observations = *c.observations;
  o.sigma_f = c.sigma_f;
  o.sigma_n = c.sigma_n;
  // Checked here, on every rank before any work, not by the rank that builds the parameters later.
  if (!(o.sigma_f > 0) || !std::isfinite(o.sigma_f)) throw InputError("--sigma-f: must be finite and > 0");
  if (!(o.sigma_n > 0) || !std::isfinite(o.sigma_n)) throw InputError("--sigma-n: must be finite and > 0");
  if (c.synthetic) {
    SyntheticGp& truth = o.synthetic;
    truth.share = *c.synthetic;
    if (!(truth.share > 0 && truth.share <= 1)) throw InputError("--synthetic: expected a share in (0, 1]");
    truth.sigma_f = o.sigma_f, truth.beta = kernel.beta, truth.sigma_n = o.sigma_n;
    if (c.synthetic_theta) {
      std::istringstream in(*c.synthetic_theta);
      char c1 = 0, c2 = 0;
      if (!(in >> truth.sigma_f >> c1 >> truth.beta >> c2 >> truth.sigma_n) || c1 != ',' || c2 != ',' ||
          !(truth.sigma_f > 0 && truth.beta > 0 && truth.sigma_n > 0))
        throw InputError("--synthetic-theta: expected three positive numbers sigma_f,beta,sigma_n");
    }
  }
  if (c.test) o.split.test_file = *c.test;
  o.split.test_fraction = c.test_fraction;
  if (!(o.split.test_fraction >= 0 && o.split.test_fraction < 1)) throw InputError("--test-fraction: expected a share in [0, 1)");
  o.split.split_seed = c.split_seed;
  o.learn = parse_gp_learn(c.learn);
  o.schedule.iterations = o.learn == GpLearn::none ? 0 : c.iterations;
  o.schedule.learning_rate = c.learning_rate;
  if (o.schedule.iterations < 0) throw InputError("--iterations: must be >= 0");
  if (!(o.schedule.learning_rate > 0)) throw InputError("--learning-rate: must be > 0");
  o.lml.probes = c.probes;
  if (o.lml.probes < 0) throw InputError("--probes: must be >= 0");
  o.lml.seed = walk.seed;
  o.lml.cg.tolerance = c.cg_tolerance;
  o.lml.cg.max_iterations = c.cg_max_iterations;
  if (!(o.lml.cg.tolerance > 0 && o.lml.cg.tolerance < 1)) throw InputError("--cg-tolerance: expected a value in (0, 1)");
  if (o.lml.cg.max_iterations < 1) throw InputError("--cg-max-iterations: must be >= 1");
  o.prediction.samples = c.samples;
  if (o.prediction.samples < 0) throw InputError("--samples: must be >= 0");
  o.prediction.exact_variance = c.exact_variance;
  if (o.prediction.samples == 0 && !o.prediction.exact_variance)
    throw InputError("--samples: 0 samples leave no variance; give --samples >= 1 or --exact-variance");
  o.prediction.seed = walk.seed;
  o.prediction.cg = o.lml.cg;
  o.reference = c.reference;
  o.normalize_y = !c.no_normalize_y;
  o.exact_variance_max_tests = kMaxDenseReferenceNodes;
  return o;
}

int run_gp_command(const CommandContext& ctx, GpCommandOptions& c) {
  const Communicator& comm = ctx.comm;
  const Log& log = ctx.log;
  GraphOptions graph_options;
  GpRunOptions o;
  std::string out_path;
  collective_try(comm, [&] {
    graph_options = graph_options_from(c.graph);
    const KernelSpec kernel = kernel_spec_from(c.kernel, c.walk.weights);
    const WalkOptions walk = walk_options_from(c.walk);
    o = gp_options_from(c, kernel, walk);
    o.memory_limit = graph_options.memory_limit;
    if (c.out) out_path = *c.out;
  });
  Timer total, phase;
  PhaseTimes phases;
  const DistributedGraph g = load_graph_for_command(ctx, c.graph, graph_options, out_path);
  phases.add("load", phase.seconds());
  bind_walk_weights(log, g, o.walk, o.kernel);
  if (o.reference) check_dense_size(g, "--reference: the exact-kernel GP");

  const GpRun run = run_gp_regression(g, o, log);
  phases.add(run.phases);
  print_report(log, run.report);

  phase.reset();
  if (!out_path.empty()) {
    H5Output out(comm, out_path);
    out.write_provenance(ctx.command_line, comm.size(), ctx.config_text, o.walk.seed);
    write_gp(out, g, run);
    out.commit();
    log.info("wrote       " + out_path);
    phases.add("write", phase.seconds());
  }
  log.info(phases.line(total.seconds()));
  print_run_summary(log, comm, total.seconds());
  return 0;
}

}  // namespace

Command gp_command() {
  return make_command<GpCommandOptions>(
      "gp", "Gaussian-process regression on the nodes with a GRF kernel: learn, predict, sample", declare_gp_options,
      run_gp_command);
}

}  // namespace graphrf
