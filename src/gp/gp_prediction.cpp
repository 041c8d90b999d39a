#include "graphrf/gp/gp_prediction.hpp"

#include <cmath>
#include <limits>
#include <numbers>

#include "graphrf/core/counter_rng.hpp"

namespace graphrf {

GpPrediction predict_gp(GrfFeatureOperator& phi, const GpData& data, double sigma_n, const Eigen::VectorXd& test,
                        const GpPredictionOptions& options) {
  const DistributedGraph& g = phi.graph();
  const std::int64_t n_local = g.n_local();
  const int s = options.samples;
  const auto space = training_space(g, data);
  const ColumnDots dots = reproducible_column_dots(space->reducer());
  const BlockOperator system = gp_system(phi, *space, sigma_n);
  GpPrediction out;

  // Prior weights eps (per column node) and observation noise e (per training node).
  Eigen::MatrixXd eps(n_local, s), noise = Eigen::MatrixXd::Zero(n_local, s);
  for (std::int64_t i = 0; i < n_local; ++i) {
    const auto key = static_cast<std::uint64_t>(g.canonical_index[static_cast<size_t>(i)]);
    for (int k = 0; k < s; ++k) {
      const auto w = philox_block(options.seed, RngDomain::gp_sample, key, static_cast<std::uint64_t>(k));
      eps(i, k) = standard_normal_pair(w[0], w[1]).first;
      if (data.train(i) != 0) noise(i, k) = sigma_n * standard_normal_pair(w[2], w[3]).first;
    }
  }
  const Eigen::MatrixXd prior = phi.times(eps);
  Eigen::MatrixXd rhs(n_local, s + 1);
  rhs.col(0) = data.y;
  for (int k = 0; k < s; ++k) rhs.col(k + 1) = data.y - prior.col(k) - noise.col(k);
  const CgResult cg = batched_conjugate_gradient(system, space->compress(rhs), dots, options.cg);
  out.cg_iterations = cg.most_iterations();
  out.converged = cg.converged;
  const Eigen::MatrixXd update = phi.times(phi.transpose_times(space->expand(cg.x)));
  out.mean = update.col(0);
  out.samples = prior + update.rightCols(s);
  out.variance = Eigen::VectorXd::Constant(n_local, std::numeric_limits<double>::quiet_NaN());
  if (s > 0) out.variance = (out.samples.colwise() - out.mean).rowwise().squaredNorm() / static_cast<double>(s);

  out.exact_variance = Eigen::VectorXd::Constant(n_local, std::numeric_limits<double>::quiet_NaN());
  if (options.exact_variance) {
    const Eigen::MatrixXd units = unit_vector_block(g, test);
    // Phi_j^T for the test nodes j needs the transpose of their rows: S is the test nodes for this product.
    phi.restrict_rows(test);
    const Eigen::MatrixXd k = space->compress(phi.times(phi.transpose_times(units)));  // rows x of Phi Phi_j^T
    phi.restrict_rows(data.train);
    const CgResult solve = batched_conjugate_gradient(system, k, dots, options.cg);
    out.exact_cg_iterations = solve.most_iterations();
    out.converged = out.converged && solve.converged;
    const Eigen::VectorXd explained = dots(k, solve.x);
    const Eigen::VectorXd prior_variance = phi.row_squared_norms();
    for (std::int64_t i = 0; i < n_local; ++i)
      for (Eigen::Index j = 0; j < units.cols(); ++j)
        if (units(i, j) != 0) out.exact_variance(i) = prior_variance(i) - explained(j);
  }
  return out;
}

GpMetrics gp_metrics(const RowBlockReducer& reducer, const Eigen::VectorXd& mean, const Eigen::VectorXd& variance,
                     double sigma_n, const Eigen::VectorXd& y, const Eigen::VectorXd& test) {
  const double z95 = 1.959963984540054;
  Eigen::MatrixXd terms = Eigen::MatrixXd::Zero(mean.size(), 4);  // count, squared error, NLPD, inside
  for (Eigen::Index i = 0; i < mean.size(); ++i) {
    if (test(i) == 0) continue;
    const double v = variance(i) + sigma_n * sigma_n, r = y(i) - mean(i);
    terms(i, 0) = 1;
    terms(i, 1) = r * r;
    terms(i, 2) = 0.5 * std::log(2 * std::numbers::pi * v) + r * r / (2 * v);
    terms(i, 3) = std::abs(r) <= z95 * std::sqrt(v) ? 1 : 0;
  }
  const Eigen::MatrixXd sums = reducer.cross(Eigen::MatrixXd::Ones(mean.size(), 1), terms);
  GpMetrics m;
  m.n_test = static_cast<std::int64_t>(sums(0, 0));
  if (m.n_test == 0) {  // no figure can be computed: NaN, not a perfect-looking 0
    m.rmse = m.nlpd = m.coverage = std::numeric_limits<double>::quiet_NaN();
    return m;
  }
  const double n = sums(0, 0);
  m.rmse = std::sqrt(sums(0, 1) / n);
  m.nlpd = sums(0, 2) / n;
  m.coverage = sums(0, 3) / n;
  return m;
}

}  // namespace graphrf
