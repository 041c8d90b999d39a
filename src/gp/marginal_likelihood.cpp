#include "graphrf/gp/marginal_likelihood.hpp"

#include <cmath>
#include <numbers>

#include "graphrf/core/counter_rng.hpp"
#include "graphrf/gp/lanczos_quadrature.hpp"

namespace graphrf {

Eigen::MatrixXd gp_probes(const DistributedGraph& g, const GpData& data, int probes, std::uint64_t seed,
                          std::uint64_t draw) {
  const std::int64_t n_local = g.n_local();
  if (probes > 0) {
    Eigen::MatrixXd z = Eigen::MatrixXd::Zero(n_local, probes);
    for (std::int64_t i = 0; i < n_local; ++i) {
      if (data.train(i) == 0) continue;
      const auto key = static_cast<std::uint64_t>(g.canonical_index[static_cast<size_t>(i)]);
      for (int p = 0; p < probes; ++p)
        z(i, p) = (philox_block(seed, RngDomain::gp_probe, key, static_cast<std::uint64_t>(p), draw)[0] >> 63) ? 1.0 : -1.0;
    }
    return z;
  }
  return unit_vector_block(g, data.train);
}

LmlEstimate estimate_lml(const GrfFeatureOperator& phi, const GpData& data,
                         double sigma_n, const LmlOptions& options, std::uint64_t draw) {
  const auto space = training_space(phi.graph(), data);
  const Eigen::MatrixXd z = space->compress(gp_probes(phi.graph(), data, options.probes, options.seed, draw));
  const Eigen::Index p = z.cols();
  // Hutchinson weight: the mean over Rademacher probes, the plain sum over unit vectors.
  const double weight = options.probes > 0 ? 1.0 / static_cast<double>(p) : 1.0;
  const double probe_norm2 = options.probes > 0 ? static_cast<double>(data.n_train) : 1.0;

  Eigen::MatrixXd rhs(z.rows(), p + 1);
  rhs.col(0) = space->compress(data.y);
  rhs.rightCols(p) = z;
  const ColumnDots dots = reproducible_column_dots(space->reducer());
  const CgResult cg = batched_conjugate_gradient(gp_system(phi, *space, sigma_n), rhs, dots, options.cg);

  LmlEstimate out;
  out.cg_iterations = cg.most_iterations();
  out.converged = cg.converged;
  const Eigen::VectorXd fit = dots(rhs, cg.x);  // y^T a, then z_p^T u_p
  out.data_fit = -0.5 * fit(0);
  double log_det = 0, trace_inverse = 0;
  for (Eigen::Index k = 1; k <= p; ++k) {
    log_det += probe_norm2 * lanczos_log_quadrature(cg.alpha[static_cast<size_t>(k)], cg.beta[static_cast<size_t>(k)]);
    trace_inverse += fit(k);
  }
  out.log_det = weight * log_det;
  out.lml = out.data_fit - 0.5 * out.log_det - 0.5 * static_cast<double>(data.n_train) * std::log(2 * std::numbers::pi);

  // Gradient with respect to f: forms of [a, -w u_1, ..., -w u_P] against Phi_x^T [a, z_1, ..., z_P].
  Eigen::MatrixXd left = cg.x;
  left.rightCols(p) *= -weight;
  Eigen::MatrixXd right(rhs.rows(), p + 1);
  right.col(0) = cg.x.col(0);
  right.rightCols(p) = z;
  const Eigen::MatrixXd forms =
      space->compress(phi.length_resolved_forms(space->expand(left), phi.transpose_times(space->expand(right))));
  out.grad_f = space->reducer().cross(Eigen::MatrixXd::Ones(forms.rows(), 1), forms).row(0).transpose();
  const double a_norm2 = dots(cg.x.leftCols(1), cg.x.leftCols(1))(0);
  out.grad_log_sigma_n = sigma_n * sigma_n * (a_norm2 - weight * trace_inverse);
  return out;
}

}  // namespace graphrf
