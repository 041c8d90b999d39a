// `graphrf gp`: Gaussian-process regression on the nodes of a graph with a GRF kernel K = sigma_f^2 M(beta):
// walk once, learn the hyperparameters (log marginal likelihood by batched CG, stochastic Lanczos quadrature
// and Hutchinson probes, Adam), predict the posterior mean, pathwise samples and variances at every node, and
// write them in canonical node order.
#include <cmath>
#include <limits>
#include <numbers>
#include <sstream>

#include "graphrf/cli/cli.hpp"
#include "graphrf/core/counter_rng.hpp"
#include "graphrf/core/timer.hpp"
#include "graphrf/gp/gp_learning.hpp"
#include "graphrf/gp/gp_observations.hpp"
#include "graphrf/gp/gp_prediction.hpp"
#include "graphrf/gp/gp_reference.hpp"
#include "graphrf/gp/target_scaling.hpp"
#include "graphrf/graph/canonical_order.hpp"
#include "graphrf/graph/graph_output.hpp"
#include "graphrf/grf/dense_gather.hpp"
#include "graphrf/grf/grf_pipeline.hpp"
#include "graphrf/io/h5_output.hpp"
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

struct GpCommandOptions {
  std::string observations, out;
  double synthetic = 0;
  double true_sigma_f = 0, true_beta = 0, true_sigma_n = 0;
  SplitSpec split;
  double sigma_f = 1, sigma_n = 0.1;
  GpLearn learn = GpLearn::hyper;
  AdamSchedule schedule;
  LmlOptions lml;
  GpPredictionOptions prediction;
  bool reference = false;
  bool normalize_y = true;
};

GpCommandOptions gp_options_from(const po::variables_map& vm, const KernelSpec& kernel, const WalkOptions& walk) {
  GpCommandOptions o;
  if (vm.count("observations") == vm.count("synthetic"))
    throw InputError("--observations: give either --observations FILE or --synthetic q");
  if (vm.count("observations")) o.observations = vm["observations"].as<std::string>();
  o.sigma_f = vm["sigma-f"].as<double>();
  o.sigma_n = vm["sigma-n"].as<double>();
  if (vm.count("synthetic")) {
    o.synthetic = vm["synthetic"].as<double>();
    if (!(o.synthetic > 0 && o.synthetic <= 1)) throw InputError("--synthetic: expected a share in (0, 1]");
    o.true_sigma_f = o.sigma_f, o.true_beta = kernel.beta, o.true_sigma_n = o.sigma_n;
    if (vm.count("synthetic-theta")) {
      std::istringstream in(vm["synthetic-theta"].as<std::string>());
      char c1 = 0, c2 = 0;
      if (!(in >> o.true_sigma_f >> c1 >> o.true_beta >> c2 >> o.true_sigma_n) || c1 != ',' || c2 != ',' ||
          !(o.true_sigma_f > 0 && o.true_beta > 0 && o.true_sigma_n > 0))
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
  if (vm.count("out")) o.out = vm["out"].as<std::string>();
  return o;
}

// One GRF-GP sample Phi eps + noise observed at a keyed share of the nodes (every node owner draws its own).
LocalObservations synthetic_observations(const GrfFeatureOperator& phi, const GpCommandOptions& o, std::uint64_t seed) {
  const DistributedGraph& g = phi.graph();
  Eigen::MatrixXd eps(g.n_local(), 1);
  LocalObservations out;
  out.y = Eigen::VectorXd::Constant(g.n_local(), std::numeric_limits<double>::quiet_NaN());
  out.role.assign(static_cast<size_t>(g.n_local()), static_cast<std::int32_t>(NodeRole::unobserved));
  for (std::int64_t i = 0; i < g.n_local(); ++i) {
    const auto w = philox_block(seed, RngDomain::gp_synthetic, static_cast<std::uint64_t>(g.canonical_index[static_cast<size_t>(i)]));
    eps(i, 0) = standard_normal_pair(w[0], w[1]).first;
  }
  const Eigen::MatrixXd sample = phi.times(eps);
  for (std::int64_t i = 0; i < g.n_local(); ++i) {
    const auto id = static_cast<std::uint64_t>(g.original_id[static_cast<size_t>(i)]);
    const auto w = philox_block(seed, RngDomain::gp_synthetic, id, 1);
    if (unit_uniform(w[0]) >= o.synthetic) continue;
    out.y(i) = sample(i, 0) + o.true_sigma_n * standard_normal_pair(w[1], w[2]).first;
    const bool test = unit_uniform(philox_block(o.split.split_seed, RngDomain::gp_split, id)[0]) < o.split.test_fraction;
    out.role[static_cast<size_t>(i)] = static_cast<std::int32_t>(test ? NodeRole::test : NodeRole::train);
  }
  for (auto r : out.role) {
    out.n_train += r == static_cast<std::int32_t>(NodeRole::train);
    out.n_test += r == static_cast<std::int32_t>(NodeRole::test);
  }
  out.n_train = g.comm->sum(out.n_train);
  out.n_test = g.comm->sum(out.n_test);
  return out;
}

std::vector<Eigen::Index> indices_with_role(const Eigen::VectorXd& role, NodeRole r) {
  std::vector<Eigen::Index> out;
  for (Eigen::Index i = 0; i < role.size(); ++i)
    if (role(i) == static_cast<double>(r)) out.push_back(i);
  return out;
}

struct ReferenceFigures {
  double kl = 0;
  GpMetrics same, learned;
  DenseLearning exact;
};

// Figures of a dense posterior at the test nodes, in the same form as gp_metrics.
GpMetrics dense_metrics(const DensePosterior& post, const Eigen::VectorXd& y, const std::vector<Eigen::Index>& test, double sigma_n) {
  GpMetrics m;
  m.n_test = static_cast<std::int64_t>(test.size());
  if (test.empty()) return m;
  double se = 0, nlpd = 0, inside = 0;
  for (size_t k = 0; k < test.size(); ++k) {
    const auto j = static_cast<Eigen::Index>(k);
    const double v = post.covariance(j, j) + sigma_n * sigma_n, r = y(test[k]) - post.mean(j);
    se += r * r;
    nlpd += 0.5 * std::log(2 * std::numbers::pi * v) + r * r / (2 * v);
    inside += std::abs(r) <= 1.959963984540054 * std::sqrt(v);
  }
  const double n = static_cast<double>(test.size());
  m.rmse = std::sqrt(se / n);
  m.nlpd = nlpd / n;
  m.coverage = inside / n;
  return m;
}

// Dense exact-kernel GP on rank 0 (same hyperparameters, and its own learned from the same start) and the KL
// divergence of the GRF posterior (the same f, dense) from the exact one over the test nodes.
ReferenceFigures dense_reference(const DistributedGraph& g, const WalkOptions& walk, const KernelSpec& kernel,
                                 const GrfFeatureOperator& phi, const LengthResolvedGrf& by_length,
                                 const LocalObservations& obs, double sigma_f, double beta, double sigma_n,
                                 double start_sigma_f, double start_beta, double start_sigma_n, const AdamSchedule& schedule) {
  const Communicator& comm = *g.comm;
  const Eigen::MatrixXd phi_dense = gather_dense_rows(comm, combine_lengths(by_length, phi.f()), g.first(), g.n_global());
  const Eigen::MatrixXd w = gather_dense_w(g, walk);
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> local(g.n_local(), 2);
  for (std::int64_t i = 0; i < g.n_local(); ++i) local(i, 0) = obs.y(i), local(i, 1) = obs.role[static_cast<size_t>(i)];
  const Eigen::MatrixXd gathered = gather_dense_block(comm, local, g.n_global());
  std::vector<double> figures;
  if (comm.is_root()) {
    const Eigen::VectorXd y = gathered.col(0), role = gathered.col(1);
    const auto train = indices_with_role(role, NodeRole::train), test = indices_with_role(role, NodeRole::test);
    const DensePosterior grf = dense_posterior(phi_dense * phi_dense.transpose(), y, train, test, sigma_n);
    const ExactGpKernel exact_kernel(kernel, w);
    const DensePosterior exact = dense_posterior(exact_kernel.matrix(sigma_f, beta), y, train, test, sigma_n);
    const double kl = test.empty() ? 0.0 : gaussian_kl(grf.mean, grf.covariance, exact.mean, exact.covariance);
    const DenseLearning learned = learn_dense_gp(exact_kernel, y, train, start_sigma_f, start_beta, start_sigma_n, schedule);
    const DensePosterior own = dense_posterior(exact_kernel.matrix(learned.sigma_f, learned.beta), y, train, test, learned.sigma_n);
    const GpMetrics same = dense_metrics(exact, y, test, sigma_n), mine = dense_metrics(own, y, test, learned.sigma_n);
    figures = {kl, same.rmse, same.nlpd, same.coverage, mine.rmse, mine.nlpd, mine.coverage, learned.sigma_f, learned.beta,
               learned.sigma_n, static_cast<double>(test.size())};
  }
  comm.broadcast(figures);
  ReferenceFigures out;
  out.kl = figures[0];
  out.same = {static_cast<std::int64_t>(figures[10]), figures[1], figures[2], figures[3]};
  out.learned = {static_cast<std::int64_t>(figures[10]), figures[4], figures[5], figures[6]};
  out.exact.sigma_f = figures[7], out.exact.beta = figures[8], out.exact.sigma_n = figures[9];
  return out;
}

// Figures of a fit to standardised targets in the user's units: residuals and predictive sd scale by `scale`,
// so RMSE scales, the NLPD (a log density) shifts by log(scale), and the coverage stays.
GpMetrics metrics_to_user(GpMetrics m, const TargetScaling& scaling) {
  m.rmse *= scaling.scale;
  m.nlpd += std::log(scaling.scale);
  return m;
}

std::string describe_metrics(const GpMetrics& m) {
  return "RMSE " + fmt(m.rmse, 4) + "  NLPD " + fmt(m.nlpd, 4) + "  95% coverage " + fmt(m.coverage, 3);
}

template <class T>
std::vector<T> column_values(const Eigen::VectorXd& v) {
  std::vector<T> out(static_cast<size_t>(v.size()));
  for (Eigen::Index i = 0; i < v.size(); ++i) out[static_cast<size_t>(i)] = static_cast<T>(v(i));
  return out;
}

}  // namespace

int run_gp(const CommandContext& ctx) {
  const Communicator& comm = ctx.comm;
  const Log& log = ctx.log;
  GraphOptions graph_options;
  KernelSpec kernel;
  WalkOptions walk;
  GpCommandOptions o;
  collective_try(comm, [&] {
    graph_options = graph_options_from(ctx.vm);
    kernel = kernel_spec_from(ctx.vm);
    walk = walk_options_from(ctx.vm);
    o = gp_options_from(ctx.vm, kernel, walk);
  });
  Timer total, phase;
  PhaseTimes phases;
  const DistributedGraph g = load_graph_for_command(ctx, graph_options, o.out);
  phases.add("load", phase.seconds());
  phase.reset();
  bind_walk_weights(log, g, walk, kernel);
  if (o.reference) check_dense_size(g, "--reference: the exact-kernel GP");
  log.info("kernel      sigma_f^2 x " + describe(kernel) + ", noise sigma_n = " + fmt(o.sigma_n, 4) + " (starting values), learn " +
           gp_learn_name(o.learn));

  // Walk once; every hyperparameter value reuses the length-resolved M_t.
  const GrfRun run = compute_grf(g, kernel, walk, GrfEstimator::symmetric, log);
  phases.add("walk", phase.seconds());
  GrfFeatureOperator phi(g, run.by_length[0]);
  const GpParameters parameters(kernel, o.learn, phi.n_lengths(), o.sigma_f, o.sigma_n);
  LocalObservations obs;
  if (o.synthetic > 0) {
    KernelSpec truth = kernel;
    truth.beta = o.true_beta;
    const GpParameters true_parameters(truth, GpLearn::hyper, phi.n_lengths(), o.true_sigma_f, o.true_sigma_n);
    phi.set_f(true_parameters.f(true_parameters.initial()));
    obs = synthetic_observations(phi, o, walk.seed);
  } else {
    obs = distribute_observations(g, o.observations, o.split);
  }
  collective_try(comm, [&] {
    if (obs.n_train == 0) throw InputError("--synthetic: no node was observed; raise q");
    if (o.prediction.exact_variance && obs.n_test > kMaxDenseReferenceNodes)
      throw InputError("--exact-variance: " + std::to_string(obs.n_test) + " test nodes need as many CG solves; the limit is " +
                       std::to_string(kMaxDenseReferenceNodes));
  });
  log.info("data        " + std::to_string(obs.n_train) + " training and " + std::to_string(obs.n_test) + " test observations of " +
           std::to_string(g.n_global()) + " nodes");

  GpData data;
  data.train = Eigen::VectorXd::Zero(g.n_local());
  data.y = Eigen::VectorXd::Zero(g.n_local());
  Eigen::VectorXd test = Eigen::VectorXd::Zero(g.n_local());
  for (std::int64_t i = 0; i < g.n_local(); ++i) {
    const auto role = static_cast<NodeRole>(obs.role[static_cast<size_t>(i)]);
    if (role == NodeRole::train) data.train(i) = 1, data.y(i) = obs.y(i);
    if (role == NodeRole::test) test(i) = 1;
  }
  data.n_train = obs.n_train;
  phi.restrict_rows(data.train);  // CG products touch the training rows only
  attach_training_space(g, data);
  const RowBlockReducer reducer(comm, g.n_global(), g.canonical_index);
  // The GP is fitted to standardised targets (model units); everything reported goes back to the user's units.
  const TargetScaling scaling = o.normalize_y ? standardise_targets(reducer, data.y, data.train) : TargetScaling{};
  LocalObservations model_obs = obs;
  if (o.normalize_y) {
    for (std::int64_t i = 0; i < g.n_local(); ++i) {
      if (data.train(i) != 0) data.y(i) = scaling.to_model(data.y(i));
      model_obs.y(i) = scaling.to_model(obs.y(i));
    }
    log.info("targets     standardised: the GP fits (y - " + fmt(scaling.mean, 6) + ") / " + fmt(scaling.scale, 6) +
             " (mean and sd of the training targets; --no-normalize-y fits y as given)");
  }

  Timer timer;
  LearningTrace trace;
  std::vector<double> p = parameters.initial();
  if (o.schedule.iterations > 0) p = learn_gp(phi, data, parameters, o.lml, o.schedule, log, trace);
  phi.set_f(parameters.f(p));
  const double learn_seconds = comm.max(timer.seconds());
  const double sigma_f = parameters.sigma_f(p), beta = parameters.beta(p), sigma_n = parameters.sigma_n(p);
  log.info("theta       sigma_f " + fmt(sigma_f, 5) + "  beta " + fmt(beta, 5) + "  sigma_n " + fmt(sigma_n, 5) + "  (" +
           (o.normalize_y ? "of the standardised targets; " : "") + "learning " + fmt(learn_seconds, 2) + " s)");

  timer.reset();
  GpPrediction prediction = predict_gp(phi, data, sigma_n, test, o.prediction);
  const double predict_seconds = comm.max(timer.seconds());
  if (!prediction.converged) log.warn("CG did not reach --cg-tolerance within --cg-max-iterations in prediction");
  if (o.normalize_y) {
    prediction.mean = prediction.mean.unaryExpr([&](double v) { return scaling.to_user(v); });
    prediction.samples = prediction.samples.unaryExpr([&](double v) { return scaling.to_user(v); });
    prediction.variance = prediction.variance.unaryExpr([&](double v) { return scaling.variance_to_user(v); });
    prediction.exact_variance = prediction.exact_variance.unaryExpr([&](double v) { return scaling.variance_to_user(v); });
  }
  const Eigen::VectorXd& variance = o.prediction.exact_variance ? prediction.exact_variance : prediction.variance;
  // The noise sd in the user's units: the predictive distribution is N(mean, variance + (scale sigma_n)^2).
  const GpMetrics metrics = gp_metrics(reducer, prediction.mean, variance, o.normalize_y ? scaling.scale * sigma_n : sigma_n, obs.y, test);
  log.info("predict     " + std::to_string(o.prediction.samples) + " pathwise samples, CG " + std::to_string(prediction.cg_iterations) +
           " iterations" + (o.prediction.exact_variance ? ", exact variance CG " + std::to_string(prediction.exact_cg_iterations) : "") +
           " (" + fmt(predict_seconds, 2) + " s)");
  if (metrics.n_test > 0) log.info("test        " + describe_metrics(metrics) + " over " + std::to_string(metrics.n_test) + " nodes");
  else log.info("test        no test nodes: rmse, nlpd and coverage are NaN");

  phases.add("learn", learn_seconds);
  phases.add("predict", predict_seconds);
  ReferenceFigures reference;
  if (o.reference) {
    phase.reset();
    const double n = static_cast<double>(g.n_global());
    log.info("reference   exact-kernel GP on rank 0: the dense " + std::to_string(g.n_global()) + " x " +
             std::to_string(g.n_global()) + " kernel (" + fmt(8e-6 * n * n, 1) + " MB a matrix) by eigendecomposition, then " +
             std::to_string(o.schedule.iterations) + " Adam steps, each a Cholesky of the " + std::to_string(obs.n_train) +
             " training rows");
    reference = dense_reference(g, walk, kernel, phi, run.by_length[0], model_obs, sigma_f, beta, sigma_n, o.sigma_f, kernel.beta,
                                o.sigma_n, o.schedule);
    if (o.normalize_y) {
      reference.same = metrics_to_user(reference.same, scaling);
      reference.learned = metrics_to_user(reference.learned, scaling);
    }
    log.info("reference   exact kernel, same theta: " + describe_metrics(reference.same) + "; KL(GRF || exact) over test nodes " +
             fmt(reference.kl, 4));
    log.info("reference   exact kernel, own theta (sigma_f " + fmt(reference.exact.sigma_f, 4) + ", beta " +
             fmt(reference.exact.beta, 4) + ", sigma_n " + fmt(reference.exact.sigma_n, 4) + "): " + describe_metrics(reference.learned));
    phases.add("reference", phase.seconds());
  }

  std::ostringstream result;
  result << "nodes=" << g.n_global() << " train=" << obs.n_train << " test=" << obs.n_test << " sigma_f=" << fmt(sigma_f, 6)
         << " beta=" << fmt(beta, 6) << " sigma_n=" << fmt(sigma_n, 6) << " learn_seconds=" << fmt(learn_seconds, 3)
         << " predict_seconds=" << fmt(predict_seconds, 3) << " walk_seconds=" << fmt(run.walks[0].walk_seconds, 3)
         << " predict_cg_iterations=" << prediction.cg_iterations;
  if (!trace.cg_iterations.empty()) result << " learn_cg_iterations_last=" << trace.cg_iterations.back() << " lml_last=" << fmt(trace.lml.back(), 6);
  if (metrics.n_test > 0) result << " rmse=" << fmt(metrics.rmse, 6) << " nlpd=" << fmt(metrics.nlpd, 6) << " coverage=" << fmt(metrics.coverage, 4);
  if (o.reference)
    result << " kl=" << fmt(reference.kl, 6) << " exact_rmse=" << fmt(reference.same.rmse, 6) << " exact_nlpd=" << fmt(reference.same.nlpd, 6)
           << " exact_learned_rmse=" << fmt(reference.learned.rmse, 6) << " exact_learned_nlpd=" << fmt(reference.learned.nlpd, 6)
           << " exact_learned_sigma_f=" << fmt(reference.exact.sigma_f, 6) << " exact_learned_beta=" << fmt(reference.exact.beta, 6)
           << " exact_learned_sigma_n=" << fmt(reference.exact.sigma_n, 6);
  log.result(result.str());

  phase.reset();
  if (!o.out.empty()) {
    H5Output out(comm, o.out);
    out.write_provenance(ctx.command_line, comm.size(), ctx.config_text, walk.seed);
    // NaN marks what is not there: y of unobserved nodes, variances not estimated.
    for (const char* dataset : {"/gp/y", "/gp/variance", "/gp/sample_variance"}) out.allow_missing_values(dataset);
    const CanonicalOrder order(g);
    write_node_rows(out, order, "/nodes/id", g.original_id);
    write_node_names(out, g);
    write_node_rows(out, order, "/gp/node_id", g.original_id);
    write_node_rows(out, order, "/gp/mean", column_values<double>(prediction.mean));
    write_node_rows(out, order, "/gp/variance", column_values<double>(variance));
    write_node_rows(out, order, "/gp/y", column_values<double>(obs.y));
    write_node_rows(out, order, "/gp/split", obs.role);
    if (o.prediction.samples > 0) {
      const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> samples = prediction.samples;
      write_node_rows(out, order, "/gp/samples", std::span<const double>(samples.data(), static_cast<size_t>(samples.size())),
                      {static_cast<std::uint64_t>(o.prediction.samples)});
    }
    if (o.prediction.exact_variance) write_node_rows(out, order, "/gp/sample_variance", column_values<double>(prediction.variance));
    out.write_replicated("/gp/theta/f", phi.f());
    out.set_attribute("/gp/theta", "sigma_f", sigma_f);
    out.set_attribute("/gp/theta", "beta", beta);
    out.set_attribute("/gp/theta", "sigma_n", sigma_n);
    out.set_attribute("/gp/theta", "learn", gp_learn_name(o.learn));
    // theta refers to the standardised targets (y - y_mean) / y_scale; y_mean 0 and y_scale 1 with --no-normalize-y.
    out.set_attribute("/gp/theta", "normalize_y", static_cast<std::int64_t>(o.normalize_y));
    out.set_attribute("/gp/theta", "y_mean", scaling.mean);
    out.set_attribute("/gp/theta", "y_scale", scaling.scale);
    if (!trace.lml.empty()) {
      out.write_replicated("/gp/theta/trace/lml", trace.lml);
      out.write_replicated("/gp/theta/trace/gradient_norm", trace.gradient_norm);
      out.write_replicated("/gp/theta/trace/sigma_f", trace.sigma_f);
      out.write_replicated("/gp/theta/trace/beta", trace.beta);
      out.write_replicated("/gp/theta/trace/sigma_n", trace.sigma_n);
      out.write_replicated("/gp/theta/trace/cg_iterations", std::vector<std::int64_t>(trace.cg_iterations.begin(), trace.cg_iterations.end()));
      out.write_replicated("/gp/theta/trace/parameters", trace.parameters,
                           {static_cast<std::uint64_t>(trace.lml.size()), static_cast<std::uint64_t>(parameters.size())});
    }
    out.set_attribute("/gp/metrics", "n_test", metrics.n_test);
    out.set_attribute("/gp/metrics", "rmse", metrics.rmse);
    out.set_attribute("/gp/metrics", "nlpd", metrics.nlpd);
    out.set_attribute("/gp/metrics", "coverage", metrics.coverage);
    if (o.reference) {
      out.set_attribute("/gp/reference", "kl", reference.kl);
      out.set_attribute("/gp/reference", "exact_rmse", reference.same.rmse);
      out.set_attribute("/gp/reference", "exact_nlpd", reference.same.nlpd);
      out.set_attribute("/gp/reference", "exact_coverage", reference.same.coverage);
      out.set_attribute("/gp/reference", "learned_rmse", reference.learned.rmse);
      out.set_attribute("/gp/reference", "learned_nlpd", reference.learned.nlpd);
      out.set_attribute("/gp/reference", "learned_coverage", reference.learned.coverage);
      out.set_attribute("/gp/reference", "learned_sigma_f", reference.exact.sigma_f);
      out.set_attribute("/gp/reference", "learned_beta", reference.exact.beta);
      out.set_attribute("/gp/reference", "learned_sigma_n", reference.exact.sigma_n);
    }
    out.commit();
    log.info("wrote       " + o.out);
    phases.add("write", phase.seconds());
  }
  log.info(phases.line(total.seconds()));
  print_run_summary(log, comm, total.seconds());
  return 0;
}

}  // namespace graphrf
