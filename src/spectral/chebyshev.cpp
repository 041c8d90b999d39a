// Chebyshev coefficients (plain and Jackson-damped) and the shifted Chebyshev recurrence applied to a
// distributed block. See chebyshev.hpp.
#include "graphrf/spectral/chebyshev.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "graphrf/core/error.hpp"
#include "graphrf/mpi/phase_progress.hpp"
#include "graphrf/spectral/chebyshev_recurrence.hpp"

namespace graphrf {

namespace {
void check_interval(double lambda_max, const char* where) {
  if (!(lambda_max > 0.0) || !std::isfinite(lambda_max))
    throw Error(std::string(where) + ": lambda_max must be a positive finite number (got " + std::to_string(lambda_max) + ")");
}
}  // namespace

std::vector<double> chebyshev_coefficients(const std::function<double(double)>& g, int degree, double lambda_max,
                                           int quadrature_points) {
  check_interval(lambda_max, "chebyshev_coefficients");
  if (degree < 0) throw Error("chebyshev_coefficients: degree must be >= 0 (got " + std::to_string(degree) + ")");
  const int ng = quadrature_points > 0 ? quadrature_points : degree + 1;
  if (ng < degree + 1)
    throw Error("chebyshev_coefficients: need at least degree + 1 = " + std::to_string(degree + 1) +
                " quadrature points (got " + std::to_string(ng) + ")");
  const double a1 = lambda_max / 2, a2 = lambda_max / 2;
  std::vector<double> theta(static_cast<size_t>(ng)), values(static_cast<size_t>(ng));
  for (int n = 0; n < ng; ++n) {
    theta[n] = std::numbers::pi * (n + 0.5) / ng;
    values[n] = g(a1 * std::cos(theta[n]) + a2);
  }
  std::vector<double> c(static_cast<size_t>(degree) + 1);
  for (int k = 0; k <= degree; ++k) {
    double s = 0.0;
    for (int n = 0; n < ng; ++n) s += values[n] * std::cos(k * theta[n]);
    c[k] = 2.0 * s / ng;
  }
  return c;
}

std::vector<double> jackson_chebyshev_coefficients(double a, double b, int degree, double lambda_max) {
  check_interval(lambda_max, "jackson_chebyshev_coefficients");
  if (degree < 0) throw Error("jackson_chebyshev_coefficients: degree must be >= 0 (got " + std::to_string(degree) + ")");
  if (!(a < b)) throw Error("jackson_chebyshev_coefficients: the band [a, b] needs a < b (got [" + std::to_string(a) + ", " +
                            std::to_string(b) + "])");
  const double a1 = lambda_max / 2, a2 = lambda_max / 2;
  const double lo = std::acos(std::clamp((a - a2) / a1, -1.0, 1.0));  // arccos a'
  const double hi = std::acos(std::clamp((b - a2) / a1, -1.0, 1.0));  // arccos b'
  const double pi = std::numbers::pi;
  const double alpha = pi / (degree + 2);
  std::vector<double> c(static_cast<size_t>(degree) + 1);
  c[0] = (2.0 / pi) * (lo - hi);  // already doubled
  for (int j = 1; j <= degree; ++j) {
    const double ch = (2.0 / (pi * j)) * (std::sin(j * lo) - std::sin(j * hi));
    const double damp = ((1.0 - j / (degree + 2.0)) * std::sin(alpha) * std::cos(j * alpha) +
                         (1.0 / (degree + 2.0)) * std::cos(alpha) * std::sin(j * alpha)) /
                        std::sin(alpha);
    c[j] = ch * damp;
  }
  return c;
}

double chebyshev_eval(const std::vector<double>& coeffs, double lambda_max, double x) {
  check_interval(lambda_max, "chebyshev_eval");
  if (coeffs.empty()) return 0.0;
  const double a1 = lambda_max / 2, a2 = lambda_max / 2;
  const double t = (x - a2) / a1;
  double prev = 1.0, cur = t;
  double p = 0.5 * coeffs[0];
  if (coeffs.size() > 1) p += coeffs[1] * cur;
  for (size_t k = 2; k < coeffs.size(); ++k) {
    const double next = 2.0 * t * cur - prev;
    prev = cur;
    cur = next;
    p += coeffs[k] * cur;
  }
  return p;
}

std::vector<Eigen::MatrixXd> chebyshev_filter(const DistributedOperator& op, double lambda_max,
                                              const std::vector<std::vector<double>>& coeff_sets,
                                              const Eigen::MatrixXd& x_local) {
  check_interval(lambda_max, "chebyshev_filter");
  if (x_local.rows() != op.n_local)
    throw Error("chebyshev_filter: the block has " + std::to_string(x_local.rows()) + " rows, expected n_local = " +
                std::to_string(op.n_local));
  size_t degree = 0;
  for (const auto& c : coeff_sets) {
    if (c.empty()) throw Error("chebyshev_filter: empty coefficient set");
    degree = std::max(degree, c.size() - 1);
  }
  // Outputs accumulate in row-major panels; the first set is accumulated inside the recurrence's fused step,
  // the others by one more pass each. Every update is elementwise, so each entry goes through the same
  // operations whatever the block's shape or the rank count.
  std::vector<RowPanel> acc;
  acc.reserve(coeff_sets.size());
  for (const auto& c : coeff_sets) acc.emplace_back((0.5 * c[0]) * x_local);
  ChebyshevRecurrence rec(op, lambda_max, x_local);
  // One sparse product per degree: long filters (references, wavelet steps on large graphs) report progress.
  PhaseProgress progress("chebyshev   filter of degree " + std::to_string(degree) + " on " + std::to_string(x_local.cols()) +
                             " column(s)",
                         static_cast<std::int64_t>(degree));
  for (size_t k = 1; k <= degree; ++k) {
    progress.step(static_cast<std::int64_t>(k) - 1);
    const bool first_takes_part = coeff_sets[0].size() > k;
    rec.advance(first_takes_part ? &acc[0] : nullptr, first_takes_part ? coeff_sets[0][k] : 0.0);
    for (size_t f = 1; f < coeff_sets.size(); ++f)
      if (coeff_sets[f].size() > k) acc[f] += coeff_sets[f][k] * rec.current();
  }
  std::vector<Eigen::MatrixXd> out;
  out.reserve(acc.size());
  for (auto& a : acc) {
    out.emplace_back(a);
    a.resize(0, 0);  // release each panel as soon as it is copied out
  }
  return out;
}

}  // namespace graphrf
