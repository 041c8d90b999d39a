#include "graphrf/gp/exact_gp_comparison.hpp"

#include <cmath>
#include <numbers>

#include "graphrf/grf/dense_gather.hpp"

namespace graphrf {

namespace {

std::vector<Eigen::Index> indices_with_role(const Eigen::VectorXd& role, NodeRole r) {
  std::vector<Eigen::Index> out;
  for (Eigen::Index i = 0; i < role.size(); ++i)
    if (role(i) == static_cast<double>(r)) out.push_back(i);
  return out;
}

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

}  // namespace

ExactGpComparison compare_with_exact_gp(const DistributedGraph& g, const WalkOptions& walk, const KernelSpec& kernel,
                                        const GrfFeatureOperator& phi, const LengthResolvedGrf& by_length,
                                        const LocalObservations& obs, double sigma_f, double beta, double sigma_n,
                                        double start_sigma_f, double start_beta, double start_sigma_n,
                                        const AdamSchedule& schedule) {
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
  ExactGpComparison out;
  out.kl = figures[0];
  out.same = {static_cast<std::int64_t>(figures[10]), figures[1], figures[2], figures[3]};
  out.learned = {static_cast<std::int64_t>(figures[10]), figures[4], figures[5], figures[6]};
  out.exact.sigma_f = figures[7], out.exact.beta = figures[8], out.exact.sigma_n = figures[9];
  return out;
}

}  // namespace graphrf
