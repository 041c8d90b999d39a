#include "graphrf/gp/gp_run.hpp"

#include <cmath>

#include "graphrf/core/error.hpp"
#include "graphrf/core/memory_size.hpp"
#include "graphrf/core/timer.hpp"
#include "graphrf/gp/gp_memory.hpp"
#include "graphrf/grf/grf_pipeline.hpp"
#include "graphrf/mpi/memory_limit.hpp"

namespace graphrf {

namespace {

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

// The figures of a run, in the order of its RESULT line; HDF5 attributes under /gp.
Report gp_report(const DistributedGraph& g, const GpRun& r, double learn_seconds, double predict_seconds, double walk_seconds) {
  const auto theta = [](const char* name) { return std::vector<AttributeTarget>{{"/gp/theta", name}}; };
  const auto metric = [](const char* name) { return std::vector<AttributeTarget>{{"/gp/metrics", name}}; };
  const auto reference = [](const char* name) { return std::vector<AttributeTarget>{{"/gp/reference", name}}; };
  Report report;
  report.count("nodes", g.n_global())
      .count("train", r.observations.n_train)
      .count("test", r.observations.n_test, "test nodes", metric("n_test"))
      .number("sigma_f", r.sigma_f, 6, {}, theta("sigma_f"))
      .number("beta", r.beta, 6, {}, theta("beta"))
      .number("sigma_n", r.sigma_n, 6, {}, theta("sigma_n"))
      .number("learn_seconds", learn_seconds, 3)
      .number("predict_seconds", predict_seconds, 3)
      .number("walk_seconds", walk_seconds, 3)
      .count("predict_cg_iterations", r.prediction.cg_iterations)
      .number("memory_estimate_mib", r.memory_estimate_mib, 1)
      .number("peak_mib", r.peak_mib, 1);
  if (!r.trace.cg_iterations.empty())
    report.count("learn_cg_iterations_last", r.trace.cg_iterations.back()).number("lml_last", r.trace.lml.back(), 6);
  // Without test nodes the figures are NaN: in the file, not in the RESULT line.
  if (r.metrics.n_test > 0)
    report.number("rmse", r.metrics.rmse, 6, "test RMSE", metric("rmse"))
        .number("nlpd", r.metrics.nlpd, 6, "test NLPD", metric("nlpd"))
        .number("coverage", r.metrics.coverage, 4, "test 95% coverage", metric("coverage"));
  else
    report.attribute(r.metrics.rmse, metric("rmse")).attribute(r.metrics.nlpd, metric("nlpd")).attribute(r.metrics.coverage, metric("coverage"));
  if (r.reference) {
    const ExactGpComparison& e = *r.reference;
    report.number("kl", e.kl, 6, {}, reference("kl"))
        .number("exact_rmse", e.same.rmse, 6, {}, reference("exact_rmse"))
        .number("exact_nlpd", e.same.nlpd, 6, {}, reference("exact_nlpd"))
        .attribute(e.same.coverage, reference("exact_coverage"))
        .number("exact_learned_rmse", e.learned.rmse, 6, {}, reference("learned_rmse"))
        .number("exact_learned_nlpd", e.learned.nlpd, 6, {}, reference("learned_nlpd"))
        .attribute(e.learned.coverage, reference("learned_coverage"))
        .number("exact_learned_sigma_f", e.exact.sigma_f, 6, {}, reference("learned_sigma_f"))
        .number("exact_learned_beta", e.exact.beta, 6, {}, reference("learned_beta"))
        .number("exact_learned_sigma_n", e.exact.sigma_n, 6, {}, reference("learned_sigma_n"));
  }
  return report;
}

}  // namespace

GpRun run_gp_regression(const DistributedGraph& g, const GpRunOptions& o, const Log& log) {
  const Communicator& comm = *g.comm;
  Timer phase;
  GpRun out;
  out.learn = o.learn;
  out.normalize_y = o.normalize_y;
  out.samples = o.prediction.samples;
  out.exact_variance = o.prediction.exact_variance;
  log.info("kernel      sigma_f^2 x " + describe(o.kernel) + ", noise sigma_n = " + fmt(o.sigma_n, 4) + " (starting values), learn " +
           gp_learn_name(o.learn));

  const GpMemory estimate = estimate_gp_memory(g, o);
  const std::string probes = o.lml.probes > 0 ? std::to_string(o.lml.probes) + " probes" : "one probe per training node";
  const std::string samples = std::to_string(o.prediction.samples) + " samples";
  const double need = announce_memory_estimate(comm, log, estimate.parts(), "blocks of " + probes + " and " + samples,
                                               o.memory_limit, "GP regression (" + probes + ", " + samples + ")");
  // Walk once; every hyperparameter value reuses the length-resolved M_t.
  const GrfRun run = compute_grf(g, o.kernel, o.walk, GrfEstimator::symmetric, log);
  out.phases.add("walk", phase.seconds());
  GrfFeatureOperator phi(g, run.by_length[0]);
  const GpParameters parameters(o.kernel, o.learn, phi.n_lengths(), o.sigma_f, o.sigma_n);
  out.n_parameters = parameters.size();
  LocalObservations& obs = out.observations;
  if (o.synthetic.share > 0) obs = synthetic_observations(phi, o.kernel, o.synthetic, o.split, o.walk.seed);
  else obs = distribute_observations(g, o.observations, o.split);
  collective_try(comm, [&] {
    if (obs.n_train == 0) throw InputError("--synthetic: no node was observed; raise q");
    if (o.prediction.exact_variance && obs.n_test > o.exact_variance_max_tests)
      throw InputError("--exact-variance: " + std::to_string(obs.n_test) + " test nodes need as many CG solves; the limit is " +
                       std::to_string(o.exact_variance_max_tests));
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
  out.scaling = scaling;
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
  std::vector<double> p = parameters.initial();
  if (o.schedule.iterations > 0) p = learn_gp(phi, data, parameters, o.lml, o.schedule, log, out.trace);
  phi.set_f(parameters.f(p));
  out.f = phi.f();
  const double learn_seconds = comm.max(timer.seconds());
  const double sigma_f = parameters.sigma_f(p), beta = parameters.beta(p), sigma_n = parameters.sigma_n(p);
  out.sigma_f = sigma_f, out.beta = beta, out.sigma_n = sigma_n;
  log.info("theta       sigma_f " + fmt(sigma_f, 5) + "  beta " + fmt(beta, 5) + "  sigma_n " + fmt(sigma_n, 5) + "  (" +
           (o.normalize_y ? "of the standardised targets; " : "") + "learning " + fmt(learn_seconds, 2) + " s)");

  timer.reset();
  GpPrediction& prediction = out.prediction;
  prediction = predict_gp(phi, data, sigma_n, test, o.prediction);
  const double predict_seconds = comm.max(timer.seconds());
  if (!prediction.converged) log.warn("CG did not reach --cg-tolerance within --cg-max-iterations in prediction");
  if (o.normalize_y) {
    prediction.mean = prediction.mean.unaryExpr([&](double v) { return scaling.to_user(v); });
    prediction.samples = prediction.samples.unaryExpr([&](double v) { return scaling.to_user(v); });
    prediction.variance = prediction.variance.unaryExpr([&](double v) { return scaling.variance_to_user(v); });
    prediction.exact_variance = prediction.exact_variance.unaryExpr([&](double v) { return scaling.variance_to_user(v); });
  }
  // The noise sd in the user's units: the predictive distribution is N(mean, variance + (scale sigma_n)^2).
  out.metrics = gp_metrics(reducer, prediction.mean, out.variance(), o.normalize_y ? scaling.scale * sigma_n : sigma_n, obs.y, test);
  const GpMetrics& metrics = out.metrics;
  log.info("predict     " + std::to_string(o.prediction.samples) + " pathwise samples, CG " + std::to_string(prediction.cg_iterations) +
           " iterations" + (o.prediction.exact_variance ? ", exact variance CG " + std::to_string(prediction.exact_cg_iterations) : "") +
           " (" + fmt(predict_seconds, 2) + " s)");
  if (metrics.n_test == 0) log.info("test        no test nodes: rmse, nlpd and coverage are NaN");
  out.memory_estimate_mib = need / kMiB;
  out.peak_mib = comm.max(own_peak_memory_mib());  // before the dense reference on rank 0
  log.info("memory      " + describe_peak(out.peak_mib, out.memory_estimate_mib));

  out.phases.add("learn", learn_seconds);
  out.phases.add("predict", predict_seconds);
  if (o.reference) {
    phase.reset();
    const double n = static_cast<double>(g.n_global());
    log.info("reference   exact-kernel GP on rank 0: the dense " + std::to_string(g.n_global()) + " x " +
             std::to_string(g.n_global()) + " kernel (" + fmt(8e-6 * n * n, 1) + " MB a matrix) by eigendecomposition, then " +
             std::to_string(o.schedule.iterations) + " Adam steps, each a Cholesky of the " + std::to_string(obs.n_train) +
             " training rows");
    ExactGpComparison reference = compare_with_exact_gp(g, o.walk, o.kernel, phi, run.by_length[0], model_obs, sigma_f, beta, sigma_n,
                                                        o.sigma_f, o.kernel.beta, o.sigma_n, o.schedule);
    if (o.normalize_y) {
      reference.same = metrics_to_user(reference.same, scaling);
      reference.learned = metrics_to_user(reference.learned, scaling);
    }
    log.info("reference   exact kernel, same theta: " + describe_metrics(reference.same) + "; KL(GRF || exact) over test nodes " +
             fmt(reference.kl, 4));
    log.info("reference   exact kernel, own theta (sigma_f " + fmt(reference.exact.sigma_f, 4) + ", beta " +
             fmt(reference.exact.beta, 4) + ", sigma_n " + fmt(reference.exact.sigma_n, 4) + "): " + describe_metrics(reference.learned));
    out.reference = reference;
    out.phases.add("reference", phase.seconds());
  }
  out.report = gp_report(g, out, learn_seconds, predict_seconds, run.walks[0].walk_seconds);
  return out;
}

}  // namespace graphrf
