#include "graphrf/grf/couple_run.hpp"

#include <algorithm>

namespace graphrf {

std::string permutation_text(const std::vector<int>& sigma) {
  std::string s;
  for (size_t k = 0; k < sigma.size(); ++k) {
    if (k > 0) s += ' ';
    s += std::to_string(sigma[k] + 1);
  }
  return s;
}

CoupleResult run_couple(const DistributedGraph& g, const CoupleRunOptions& options, const Log& log) {
  SigmaLearningOptions o = options.learning;
  o.start_every = std::max<std::int64_t>(1, g.n_global() / options.start_nodes);
  log.info(std::string("couple      target ") + (o.target == SigmaTarget::kernel ? describe(o.kernel) : "pagerank") +
           ", p_halt " + fmt(o.walk.p_halt, 3) + ", m " + std::to_string(o.order) + ", S " + std::to_string(o.samples) +
           " walks per quantile from every " + std::to_string(o.start_every) + "th node");
  CoupleResult result;
  result.learned = learn_sigma(g, o, log);
  const SigmaLearningResult& r = result.learned;
  log.info("couple      " + std::to_string(r.start_nodes) + " start nodes, walks " + fmt(r.walk_seconds, 3) +
           " s, cost matrix " + fmt(r.cost_seconds, 3) + " s, assignment " + fmt(r.solve_seconds, 5) + " s");
  std::string sigma_csv = permutation_text(r.sigma);
  std::replace(sigma_csv.begin(), sigma_csv.end(), ' ', ',');
  result.report.count("order", o.order)
      .count("start_nodes", r.start_nodes)
      .text("sigma", sigma_csv, "sigma")
      .number("cost_sigma", r.cost_sigma, 8, "cost of sigma")
      .number("cost_identity", r.cost_identity, 8, "cost of the identity")
      .number("cost_random", r.cost_random, 8, "cost of the random permutation " + permutation_text(r.random))
      .number("cost_random_mean", r.cost_random_mean, 8, "mean cost over all permutations")
      .number("cost_seconds", r.cost_seconds, 4)
      .number("solve_seconds", r.solve_seconds, 6);
  return result;
}

}  // namespace graphrf
