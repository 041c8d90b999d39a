// `graphrf gp`: Gaussian-process regression on the nodes of a graph with a GRF kernel K = sigma_f^2 M(beta)
// (gp/gp_run.hpp), written in canonical node order (gp/gp_output.hpp).
#include <sstream>

#include "graphrf/cli/cli.hpp"
#include "graphrf/core/timer.hpp"
#include "graphrf/gp/gp_output.hpp"
#include "graphrf/gp/gp_run.hpp"
#include "graphrf/io/h5_output.hpp"
#include "graphrf/io/report_output.hpp"
#include "graphrf/mpi/run_summary.hpp"

namespace graphrf {

void add_gp_options(po::options_description& desc) {
  add_graph_options(desc);
  add_kernel_options(desc);
  add_walk_options(desc);
  desc.add_options()
      ("observations", po::value<std::string>(), "observed values: CSV `node,y` with a header, or HDF5 /obs/id, /obs/y")
      ("synthetic", po::value<double>(),
       "instead of --observations: observe a share q of the nodes of one GRF-GP sample drawn with --synthetic-theta")
      ("synthetic-theta", po::value<std::string>(), "sigma_f,beta,sigma_n of --synthetic data (default: the starting values)")
      ("test", po::value<std::string>(), "file of test node ids (one per line); each must be observed")
      ("test-fraction", double_value(0.2), "without --test: share of observations held out for testing")
      ("split-seed", po::value<std::uint64_t>()->default_value(1), "seed of the random test split")
      ("sigma-f", po::value<double>()->default_value(1.0), "signal scale: K = sigma_f^2 M(beta) (starting value)")
      ("sigma-n", double_value(0.1), "observation noise standard deviation (starting value)")
      ("no-normalize-y", po::bool_switch(),
       "fit the targets as given (zero-mean prior); by default the GP is fitted to (y - mean) / sd of the training "
       "targets, as scikit-learn's normalize_y, and sigma_f, sigma_n and the LML refer to those; outputs are in y's units")
      ("learn", po::value<std::string>()->default_value("hyper"), "none | hyper (sigma_f, beta, sigma_n) | f (f_0..f_T, sigma_n)")
      ("iterations", po::value<int>()->default_value(50), "Adam iterations")
      ("learning-rate", double_value(0.05), "Adam step size (cosine-decayed to a tenth)")
      ("probes", po::value<int>()->default_value(16), "Hutchinson/Lanczos probes per iteration (0: exact, one per training node)")
      ("cg-tolerance", double_value(1e-6), "relative residual at which CG stops")
      ("cg-max-iterations", po::value<int>()->default_value(1000), "CG iteration limit")
      ("samples", po::value<int>()->default_value(64), "pathwise posterior samples (variance estimate)")
      ("exact-variance", po::bool_switch(), "also the exact GRF-GP variance at the test nodes (one CG solve each)")
      ("reference", po::bool_switch(), "dense exact-kernel GP (same and own learned hyperparameters) and KL (N <= 5000)")
      ("out", po::value<std::string>(), "HDF5 output (without it nothing is written)");
}

namespace {

GpRunOptions gp_options_from(const po::variables_map& vm, const KernelSpec& kernel, const WalkOptions& walk) {
  GpRunOptions o;
  o.kernel = kernel;
  o.walk = walk;
  if (vm.count("observations") == vm.count("synthetic"))
    throw InputError("--observations: give either --observations FILE or --synthetic q");
  if (vm.count("observations")) o.observations = vm["observations"].as<std::string>();
  o.sigma_f = vm["sigma-f"].as<double>();
  o.sigma_n = vm["sigma-n"].as<double>();
  if (vm.count("synthetic")) {
    SyntheticGp& truth = o.synthetic;
    truth.share = vm["synthetic"].as<double>();
    if (!(truth.share > 0 && truth.share <= 1)) throw InputError("--synthetic: expected a share in (0, 1]");
    truth.sigma_f = o.sigma_f, truth.beta = kernel.beta, truth.sigma_n = o.sigma_n;
    if (vm.count("synthetic-theta")) {
      std::istringstream in(vm["synthetic-theta"].as<std::string>());
      char c1 = 0, c2 = 0;
      if (!(in >> truth.sigma_f >> c1 >> truth.beta >> c2 >> truth.sigma_n) || c1 != ',' || c2 != ',' ||
          !(truth.sigma_f > 0 && truth.beta > 0 && truth.sigma_n > 0))
        throw InputError("--synthetic-theta: expected three positive numbers sigma_f,beta,sigma_n");
    }
  }
  if (vm.count("test")) o.split.test_file = vm["test"].as<std::string>();
  o.split.test_fraction = vm["test-fraction"].as<double>();
  if (!(o.split.test_fraction >= 0 && o.split.test_fraction < 1)) throw InputError("--test-fraction: expected a share in [0, 1)");
  o.split.split_seed = vm["split-seed"].as<std::uint64_t>();
  o.learn = parse_gp_learn(vm["learn"].as<std::string>());
  o.schedule.iterations = o.learn == GpLearn::none ? 0 : vm["iterations"].as<int>();
  o.schedule.learning_rate = vm["learning-rate"].as<double>();
  if (o.schedule.iterations < 0) throw InputError("--iterations: must be >= 0");
  if (!(o.schedule.learning_rate > 0)) throw InputError("--learning-rate: must be > 0");
  o.lml.probes = vm["probes"].as<int>();
  if (o.lml.probes < 0) throw InputError("--probes: must be >= 0");
  o.lml.seed = walk.seed;
  o.lml.cg.tolerance = vm["cg-tolerance"].as<double>();
  o.lml.cg.max_iterations = vm["cg-max-iterations"].as<int>();
  if (!(o.lml.cg.tolerance > 0 && o.lml.cg.tolerance < 1)) throw InputError("--cg-tolerance: expected a value in (0, 1)");
  if (o.lml.cg.max_iterations < 1) throw InputError("--cg-max-iterations: must be >= 1");
  o.prediction.samples = vm["samples"].as<int>();
  if (o.prediction.samples < 0) throw InputError("--samples: must be >= 0");
  o.prediction.exact_variance = vm["exact-variance"].as<bool>();
  if (o.prediction.samples == 0 && !o.prediction.exact_variance)
    throw InputError("--samples: 0 samples leave no variance; give --samples >= 1 or --exact-variance");
  o.prediction.seed = walk.seed;
  o.prediction.cg = o.lml.cg;
  o.reference = vm["reference"].as<bool>();
  o.normalize_y = !vm["no-normalize-y"].as<bool>();
  o.exact_variance_max_tests = kMaxDenseReferenceNodes;
  return o;
}

}  // namespace

int run_gp(const CommandContext& ctx) {
  const Communicator& comm = ctx.comm;
  const Log& log = ctx.log;
  GraphOptions graph_options;
  GpRunOptions o;
  std::string out_path;
  collective_try(comm, [&] {
    graph_options = graph_options_from(ctx.vm);
    const KernelSpec kernel = kernel_spec_from(ctx.vm);
    const WalkOptions walk = walk_options_from(ctx.vm);
    o = gp_options_from(ctx.vm, kernel, walk);
    if (ctx.vm.count("out")) out_path = ctx.vm["out"].as<std::string>();
  });
  Timer total, phase;
  PhaseTimes phases;
  const DistributedGraph g = load_graph_for_command(ctx, graph_options, out_path);
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

}  // namespace graphrf
