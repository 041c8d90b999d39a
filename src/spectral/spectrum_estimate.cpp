// Lanczos estimate of lambda_max, the eigencount estimator and the lambda_K dichotomy. See spectrum_estimate.hpp.
#include "graphrf/spectral/spectrum_estimate.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "graphrf/spectral/chebyshev.hpp"
#include "graphrf/spectral/spectral_moments.hpp"
#include "graphrf/core/error.hpp"
#include "graphrf/core/option_error.hpp"

namespace graphrf {

Eigen::MatrixXd keyed_gaussian_block(const std::vector<std::int64_t>& row_keys, Eigen::Index columns, std::uint64_t seed,
                                     RngDomain domain, std::uint64_t stream, double scale) {
  const auto n = static_cast<Eigen::Index>(row_keys.size());
  Eigen::MatrixXd g(n, columns);
  for (Eigen::Index i = 0; i < n; ++i) {
    const auto key = static_cast<std::uint64_t>(row_keys[i]);
    for (Eigen::Index c = 0; c < columns; c += 2) {
      const auto w = philox_block(seed, domain, key, static_cast<std::uint64_t>(c / 2), stream);
      const auto [z0, z1] = standard_normal_pair(w[0], w[1]);
      g(i, c) = scale * z0;
      if (c + 1 < columns) g(i, c + 1) = scale * z1;
    }
  }
  return g;
}

double estimate_lambda_max(const DistributedOperator& op, const RowBlockReducer& sums, const LambdaMaxOptions& options) {
  if (options.steps < 1) throw Error("estimate_lambda_max: steps must be >= 1 (got " + std::to_string(options.steps) + ")");
  if (op.n_global == 0) return 0.0;
  const int m = static_cast<int>(std::min<std::int64_t>(options.steps, op.n_global));
  Eigen::MatrixXd v = keyed_gaussian_block(op.row_keys, 1, options.seed, RngDomain::wavelet_probe, 1);
  v /= std::sqrt(sums.squared_norm(v));
  Eigen::MatrixXd v_prev = Eigen::MatrixXd::Zero(v.rows(), 1);
  Eigen::MatrixXd w(v.rows(), 1);
  std::vector<double> alpha, beta;  // beta[j] couples steps j and j + 1; the last one is the residual
  for (int j = 0; j < m; ++j) {
    op.apply(v, w);
    const double a = sums.cross(w, v)(0, 0);
    w = w - a * v - (j > 0 ? beta.back() : 0.0) * v_prev;
    const double b = std::sqrt(sums.squared_norm(w));
    alpha.push_back(a);
    beta.push_back(b);
    // Breakdown: an invariant subspace was found and the Ritz values are exact.
    if (!(b > 1e-12 * std::max(1.0, std::abs(a)))) break;
    v_prev = v;
    v = w / b;
  }
  const auto k = static_cast<Eigen::Index>(alpha.size());
  Eigen::VectorXd diag = Eigen::Map<Eigen::VectorXd>(alpha.data(), k);
  Eigen::VectorXd sub = k > 1 ? Eigen::VectorXd(Eigen::Map<Eigen::VectorXd>(beta.data(), k - 1)) : Eigen::VectorXd(0);
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig;
  eig.computeFromTridiagonal(diag, sub, Eigen::ComputeEigenvectors);
  const double theta = eig.eigenvalues()(k - 1);
  const double residual = std::abs(beta.back() * eig.eigenvectors()(k - 1, k - 1));
  return (theta + residual) * (1.0 + options.margin);
}

int default_probe_count(std::int64_t n_global) {
  const double ln = n_global > 1 ? std::log(static_cast<double>(n_global)) : 0.0;
  return std::max(2, 2 * static_cast<int>(std::lround(ln)));
}

Eigen::MatrixXd eigencount_probes(const DistributedOperator& op, int n_probe, std::uint64_t seed) {
  if (n_probe < 1) throw Error("eigencount_probes: need at least one probe column (got " + std::to_string(n_probe) + ")");
  return keyed_gaussian_block(op.row_keys, n_probe, seed, RngDomain::wavelet_probe, 0, 1.0 / std::sqrt(double(n_probe)));
}

double eigencount(const DistributedOperator& op, const RowBlockReducer& sums, double lambda_max, double lambda,
                  const Eigen::MatrixXd& probes_local, int order) {
  const auto coeffs = jackson_chebyshev_coefficients(0.0, lambda, order, lambda_max);
  const auto filtered = chebyshev_filter(op, lambda_max, {coeffs}, probes_local);
  return sums.squared_norm(filtered[0]);
}

LambdaKEstimate estimate_lambda_k(const DistributedOperator& op, const RowBlockReducer& sums, double lambda_max,
                                  std::int64_t k, const LambdaKOptions& options) {
  if (k < 1) throw Error("estimate_lambda_k: K must be >= 1 (got " + std::to_string(k) + ")");
  if (options.order < 1) throw Error("estimate_lambda_k: order must be >= 1 (got " + std::to_string(options.order) + ")");
  if (!(options.count_tolerance >= 0.0))
    throw Error("estimate_lambda_k: count_tolerance must be >= 0 (got " + std::to_string(options.count_tolerance) + ")");
  if (!(options.eps > 0.0 && options.eps < 1.0))
    throw Error("estimate_lambda_k: eps must be in (0, 1) (got " + std::to_string(options.eps) + ")");
  LambdaKEstimate est;
  est.n_probe = options.n_probe > 0 ? options.n_probe : default_probe_count(op.n_global);
  // The only products with the operator: `order` steps on the probe block. Every count below is a polynomial
  // in these moments (spectral_moments.hpp), the same number the filtered eigencount would give.
  const std::vector<double> moments =
      chebyshev_moments(op, sums, lambda_max, eigencount_probes(op, est.n_probe, options.seed), options.order);
  const double k_d = static_cast<double>(k);
  auto count_at = [&](double lambda) {
    return filtered_norm_from_moments(moments, jackson_chebyshev_coefficients(0.0, lambda, options.order, lambda_max));
  };
  // sd of x is sqrt(2 tr(p^4) / Lr) <= sqrt(2 x / Lr). Undercounts up to z sd are accepted, overcounts only
  // up to 1/2 (see spectrum_estimate.hpp).
  auto below_window = [&](double x) {
    return k_d - x > std::max(0.5, options.count_tolerance * std::sqrt(2.0 * std::max(x, 0.0) / est.n_probe));
  };
  auto above_window = [&](double x) { return x - k_d > 0.5; };

  double lo = 0.0, hi = lambda_max, accepted_at = -1.0;
  while (accepted_at < 0 && (hi - lo) / hi > options.eps && est.iterations < options.max_iterations) {
    const double mid = 0.5 * (lo + hi);
    const double x = count_at(mid);
    est.count = std::llround(x);
    if (!below_window(x) && !above_window(x)) accepted_at = mid;
    else if (x > k_d) hi = mid;
    else lo = mid;
    ++est.iterations;
    if (options.progress)
      options.progress("lambda_K    step " + std::to_string(est.iterations) + ": eigencount " + format_number(x, 4) +
                       " at lambda " + format_number(mid, 5) + ", interval [" + format_number(lo, 5) + ", " +
                       format_number(hi, 5) + "]");
  }
  est.lower = lo;
  est.upper = hi;
  est.lambda_k = 0.5 * (lo + hi);
  if (accepted_at < 0) return est;

  // Refinement. Every cut-off in the acceptance window {lambda : K - z sd <= x(lambda) <= K + 1/2} is
  // consistent with K eigenvalues below it at the probes' noise level, so the count alone cannot say where in
  // the window lambda_K is: it is ambiguous exactly there. The window is an interval (x is nondecreasing in
  // lambda: the Jackson low-pass on [0, lambda] grows with lambda pointwise) and costs nothing more to map
  // (counts are polynomials in the moments), so both its edges are found by bisection to the same relative
  // width eps, and the cut goes to its middle. Inside a spectral gap the window spans the count's plateau and
  // the cut lands mid-gap, as far from both clusters as the filter allows; on a dense spectrum the window is
  // a few eigenvalues wide and the cut stays among them. The result no longer depends on the bisection path.
  auto edge = [&](double inside, double outside, auto is_outside) {
    while (std::abs(outside - inside) > options.eps * std::max(inside, outside) &&
           est.refinement_steps < 4 * options.max_iterations) {
      const double mid = 0.5 * (inside + outside);
      (is_outside(count_at(mid)) ? outside : inside) = mid;
      ++est.refinement_steps;
    }
    return inside;
  };
  est.window_lower = edge(accepted_at, lo, below_window);
  est.window_upper = edge(accepted_at, hi, above_window);
  est.lower = est.window_lower;
  est.upper = est.window_upper;
  est.lambda_k = 0.5 * (est.window_lower + est.window_upper);
  est.count = std::llround(count_at(est.lambda_k));
  return est;
}

}  // namespace graphrf
