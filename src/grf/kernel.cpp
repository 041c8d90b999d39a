// Graph kernels as power series in W and their modulation functions f. See kernel.hpp. Coefficients are built with
// product recurrences (each factor positive or a generalised-binomial ratio), which keeps the relative error of
// term k at O(k eps) and lets far terms underflow to zero gracefully instead of overflowing an intermediate beta^k
// or k!.
#include "graphrf/grf/kernel.hpp"

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <complex>
#include <limits>
#include <numbers>
#include <sstream>
#include <stdexcept>

#include "graphrf/core/error.hpp"
#include "graphrf/core/option_error.hpp"

namespace graphrf {
namespace {

// beta^k / k! and e^beta stay finite (and e^-beta normal) for beta <= kMaxBeta.
constexpr double kMaxBeta = 700.0;
// binom(power, k) stays finite for an integer power <= kMaxPStepPower.
constexpr double kMaxPStepPower = 1000.0;
// The largest |alpha_k| of --alpha and |f_k| of --f (alpha = f * f).
constexpr double kMaxAbsAlpha = 1e100;
constexpr double kMaxAbsF = 1e50;
// Relative slack when a radius of convergence may be reached exactly (cosine, odd p-step).
constexpr double kRadiusSlack = 1e-12;

struct KindName {
  KernelKind kind;
  std::string_view name;
};
constexpr std::array<KindName, 7> kKindNames = {{{KernelKind::diffusion, "diffusion"},
                                                 {KernelKind::exp_adjacency, "exp-adjacency"},
                                                 {KernelKind::regularized_laplacian, "regularized-laplacian"},
                                                 {KernelKind::p_step, "p-step"},
                                                 {KernelKind::cosine, "cosine"},
                                                 {KernelKind::alpha, "alpha"},
                                                 {KernelKind::f, "f"}}};

void check_n_terms(int n_terms) {
  if (n_terms < 0) throw std::invalid_argument("kernel series: n_terms must be >= 0 (got " + std::to_string(n_terms) + ")");
}

bool uses_beta(KernelKind k) {
  return k == KernelKind::diffusion || k == KernelKind::exp_adjacency || k == KernelKind::regularized_laplacian ||
         k == KernelKind::cosine;
}

// beta^k / k! for k = 0..n-1, times `scale`.
std::vector<double> scaled_exponential_terms(double beta, double scale, int n) {
  std::vector<double> t(static_cast<std::size_t>(n));
  double term = scale;
  for (int k = 0; k < n; ++k) {
    if (k > 0) term *= beta / k;
    t[static_cast<std::size_t>(k)] = term;
  }
  return t;
}

// scale * binom(r, k) * ratio^k for k = 0..n-1 (generalised binomial: r real). Exactly zero from
// k = r + 1 on when r is a nonnegative integer.
std::vector<double> binomial_terms(double r, double ratio, double scale, int n) {
  std::vector<double> t(static_cast<std::size_t>(n));
  double term = scale;
  for (int k = 0; k < n; ++k) {
    if (k > 0) term *= (r - (k - 1)) / k * ratio;
    t[static_cast<std::size_t>(k)] = term;
  }
  return t;
}

// scale * binom(r + k - 1, k) * ratio^k = scale * Gamma(r + k) / (Gamma(r) k!) * ratio^k (negative binomial).
std::vector<double> negative_binomial_terms(double r, double ratio, double scale, int n) {
  std::vector<double> t(static_cast<std::size_t>(n));
  double term = scale;
  for (int k = 0; k < n; ++k) {
    if (k > 0) term *= (r + (k - 1)) / k * ratio;
    t[static_cast<std::size_t>(k)] = term;
  }
  return t;
}

std::vector<double> padded(std::span<const double> v, int n) {
  std::vector<double> out(static_cast<std::size_t>(n), 0.0);
  std::copy_n(v.begin(), std::min(v.size(), out.size()), out.begin());
  return out;
}

double horner(std::span<const double> c, double x) {
  double s = 0.0;
  for (auto it = c.rbegin(); it != c.rend(); ++it) s = s * x + *it;
  return s;
}

// The beta of the series in W: beta itself, or beta * d_max when the kernel is h(d_max L) of the walk
// matrix's L = I - W (--weights combinatorial: h(D - A) with D - A = d_max (I - W)).
double series_beta(const KernelSpec& s) { return s.beta * s.laplacian_scale; }

// Appended to messages about beta when it is scaled, so that the number quoted can be traced back to --beta.
std::string scale_note(const KernelSpec& s) {
  if (s.laplacian_scale == 1.0) return "";
  return " [walk.weights combinatorial: the walks' series uses beta * d_max = " + format_number(s.beta) + " * " +
         format_number(s.laplacian_scale) + "; lower kernel.beta]";
}

// A Laplacian scale other than 1 means h(scale * L) of L = I - W: only kernels that are functions of L have it.
void check_laplacian_scale(const KernelSpec& s) {
  if (!(s.laplacian_scale > 0.0) || !std::isfinite(s.laplacian_scale))
    throw std::invalid_argument("kernel: laplacian_scale must be finite and > 0 (got " + format_number(s.laplacian_scale) + ")");
  if (s.laplacian_scale != 1.0 && (s.kind == KernelKind::exp_adjacency || s.kind == KernelKind::p_step))
    option_error(kKernelOption, std::string(kernel_kind_name(s.kind)) + " is not a function of the combinatorial Laplacian "
                 "D - A that graphrf supports (walk.weights combinatorial: use diffusion, regularized-laplacian, cosine, kernel.alpha or kernel.f)");
}

double reg_c(const KernelSpec& s) { return series_beta(s) / (1.0 + series_beta(s)); }

// alpha without any validation.
std::vector<double> alpha_unchecked(const KernelSpec& s, int n) {
  switch (s.kind) {
    case KernelKind::diffusion:
      return scaled_exponential_terms(series_beta(s), std::exp(-series_beta(s)), n);
    case KernelKind::exp_adjacency:
      return scaled_exponential_terms(series_beta(s), 1.0, n);
    case KernelKind::regularized_laplacian:
      return negative_binomial_terms(s.power, reg_c(s), std::pow(1.0 + series_beta(s), -s.power), n);
    case KernelKind::p_step: {
      const double a1 = s.shift - 1.0;
      return binomial_terms(s.power, 1.0 / a1, std::pow(a1, s.power), n);
    }
    case KernelKind::cosine: {
      auto t = scaled_exponential_terms(series_beta(s), 1.0, n);
      const double cb = std::cos(series_beta(s)), sb = std::sin(series_beta(s));
      for (int k = 0; k < n; ++k) {
        const double sign = ((k / 2) % 2 == 0) ? 1.0 : -1.0;
        t[static_cast<std::size_t>(k)] *= sign * (k % 2 == 0 ? cb : sb);
      }
      return t;
    }
    case KernelKind::alpha:
      return padded(s.coefficients, n);
    case KernelKind::f:
      return self_convolution(s.coefficients, n);
  }
  throw std::logic_error("kernel_alpha: unhandled KernelKind");
}

// The option that carries user coefficients: --alpha or --f.
std::string_view coefficient_option(const KernelSpec& s) { return s.kind == KernelKind::alpha ? "kernel.alpha" : "kernel.f"; }

void check_coefficients(const KernelSpec& s, const char* symbol) {
  const std::string kind(kernel_kind_name(s.kind));
  if (s.coefficients.empty())
    option_error(coefficient_option(s), "kernel '" + kind + "' needs at least one coefficient " + symbol + "_0, " + symbol +
                                  "_1, ... (got none)");
  // Features are sums of f_k (alpha = f * f) and kernels their products: beyond these magnitudes they overflow.
  const double largest = s.kind == KernelKind::f ? kMaxAbsF : kMaxAbsAlpha;
  for (std::size_t k = 0; k < s.coefficients.size(); ++k) {
    if (!std::isfinite(s.coefficients[k]))
      option_error(coefficient_option(s),
           std::string(symbol) + "_" + std::to_string(k) + " = " + format_number(s.coefficients[k]) + " is not finite");
    if (std::abs(s.coefficients[k]) > largest)
      option_error(coefficient_option(s), std::string(symbol) + "_" + std::to_string(k) + " = " + format_number(s.coefficients[k]) +
                                              " is too large (|" + symbol + "_k| <= " + format_number(largest) +
                                              " keeps the features and kernel finite); rescale the series");
  }
}

// `what` names alpha_0, e.g. "alpha_0" or "alpha_0 = cos(beta)".
std::string no_root_message(double alpha0, const std::string& what = "alpha_0") {
  return what + " = " + format_number(alpha0) + " <= 0: the kernel has no real square root f (f_0 = sqrt(alpha_0))";
}

// Zeros of cos(beta (1 - x)) are x_k = 1 - (pi/2 + k pi)/beta; the nearest to 0 in modulus.
double cosine_nearest_zero(double beta) {
  using std::numbers::pi;
  const double k0 = std::floor((beta - pi / 2) / pi);
  double best = std::numeric_limits<double>::infinity();
  for (double k = k0 - 1; k <= k0 + 2; k += 1.0) best = std::min(best, std::abs(1.0 - (pi / 2 + k * pi) / beta));
  return best;
}

// Smallest |root| of sum_k c_k x^k via the eigenvalues of the companion matrix; +inf for a constant.
double smallest_root_modulus(std::span<const double> c) {
  std::size_t deg = c.size();
  while (deg > 0 && c[deg - 1] == 0.0) --deg;
  if (deg <= 1) return std::numeric_limits<double>::infinity();
  const Eigen::Index n = static_cast<Eigen::Index>(deg - 1);  // polynomial degree
  Eigen::MatrixXd companion = Eigen::MatrixXd::Zero(n, n);
  for (Eigen::Index i = 1; i < n; ++i) companion(i, i - 1) = 1.0;
  for (Eigen::Index i = 0; i < n; ++i) companion(i, n - 1) = -c[static_cast<std::size_t>(i)] / c[deg - 1];
  Eigen::EigenSolver<Eigen::MatrixXd> es(companion, /*computeEigenvectors=*/false);
  double best = std::numeric_limits<double>::infinity();
  for (Eigen::Index i = 0; i < n; ++i) best = std::min(best, std::abs(es.eigenvalues()(i)));
  return best;
}

}  // namespace

KernelKind parse_kernel_kind(std::string_view name) {
  for (const auto& kn : kKindNames)
    if (kn.name == name) return kn.kind;
  std::string expected;
  for (const auto& kn : kKindNames) expected += (expected.empty() ? "" : ", ") + std::string(kn.name);
  option_error(kKernelOption, "unknown kernel '" + std::string(name) + "' (expected " + expected + ")");
}

std::string_view kernel_kind_name(KernelKind kind) {
  for (const auto& kn : kKindNames)
    if (kn.kind == kind) return kn.name;
  throw std::logic_error("kernel_kind_name: unhandled KernelKind");
}

void validate_parameters(const KernelSpec& s) {
  const std::string kind(kernel_kind_name(s.kind));
  check_laplacian_scale(s);
  if (uses_beta(s.kind)) {
    if (!(s.beta > 0.0)) option_error(kBetaOption, kind + " needs beta > 0 (got " + format_number(s.beta) + ")");
    if (!std::isfinite(s.beta)) option_error(kBetaOption, kind + " needs a finite beta (got " + format_number(s.beta) + ")");
    // regularized-laplacian has no e^beta: only c = beta/(1+beta) and (1+beta)^-power.
    if (s.kind != KernelKind::regularized_laplacian && !(series_beta(s) <= kMaxBeta))
      option_error(kBetaOption, kind + " needs beta <= " + format_number(kMaxBeta) + " so that e^beta and beta^k/k! stay finite (got " +
                            format_number(series_beta(s)) + ")" + scale_note(s));
  }
  switch (s.kind) {
    case KernelKind::regularized_laplacian:
      if (!(s.power > 0.0) || !std::isfinite(s.power))
        option_error(kPowerOption, kind + " needs a finite power > 0 (got " + format_number(s.power) + ")");
      break;
    case KernelKind::p_step:
      if (!(s.shift >= 2.0) || !std::isfinite(s.shift))
        option_error(kShiftOption, kind + " needs a finite shift >= 2 (got " + format_number(s.shift) + ")");
      if (!(s.power >= 1.0) || s.power != std::floor(s.power))
        option_error(kPowerOption, kind + " needs an integer power >= 1 (got " + format_number(s.power) + ")");
      if (s.power > kMaxPStepPower)
        option_error(kPowerOption, kind + " needs power <= " + format_number(kMaxPStepPower) + " (got " + format_number(s.power) + ")");
      break;
    case KernelKind::cosine: {
      const double a0 = std::cos(series_beta(s));
      if (!(a0 > 0.0))
        option_error(kBetaOption, kind + " has " + no_root_message(a0, "alpha_0 = cos(beta)") + "; use 0 < beta < pi/2" + scale_note(s));
      break;
    }
    case KernelKind::alpha:
      check_coefficients(s, "alpha");
      if (!(s.coefficients[0] > 0.0)) option_error(coefficient_option(s), no_root_message(s.coefficients[0]));
      break;
    case KernelKind::f: {
      check_coefficients(s, "f");
      // f is given, so no square root is needed: f_0 may be 0 or negative (f and -f give the same M).
      if (std::all_of(s.coefficients.begin(), s.coefficients.end(), [](double v) { return v == 0.0; }))
        option_error(coefficient_option(s), "all f coefficients are zero (the kernel would be the zero matrix)");
      break;
    }
    default:
      break;
  }
  if (s.kind != KernelKind::alpha && s.kind != KernelKind::f) {
    // The prefactor alpha_0 must be a normal positive double: e.g. (1+beta)^-power can underflow.
    const double a0 = alpha_unchecked(s, 1)[0];
    const std::string_view option = s.kind == KernelKind::diffusion ? kBetaOption : kPowerOption;
    if (!(a0 >= DBL_MIN) || !std::isfinite(a0))
      option_error(option, kind + " prefactor alpha_0 = " + format_number(a0) + " overflows or underflows a double (" +
                       describe(s) + ")");
  }
}

double f_series_radius(const KernelSpec& s) {
  validate_parameters(s);
  constexpr double inf = std::numeric_limits<double>::infinity();
  switch (s.kind) {
    case KernelKind::diffusion:
    case KernelKind::exp_adjacency:
    case KernelKind::f:
      return inf;
    case KernelKind::regularized_laplacian:
      return 1.0 / reg_c(s);
    case KernelKind::p_step:
      return std::fmod(s.power, 2.0) == 0.0 ? inf : s.shift - 1.0;
    case KernelKind::cosine:
      return cosine_nearest_zero(series_beta(s));
    case KernelKind::alpha:
      return smallest_root_modulus(s.coefficients);
  }
  throw std::logic_error("f_series_radius: unhandled KernelKind");
}

void validate(const KernelSpec& s, double rho) {
  if (!(rho >= 0.0) || !std::isfinite(rho))
    throw std::invalid_argument("kernel validate: spectral radius of W must be finite and >= 0 (got " + format_number(rho) + ")");
  validate_parameters(s);
  switch (s.kind) {
    case KernelKind::regularized_laplacian: {
      const double c = reg_c(s);
      if (!(c * rho < 1.0)) {
        std::string hint = rho > 1.0 ? "; use beta < 1/(rho - 1) = " + format_number(1.0 / (rho - 1.0)) + " or a smaller W" : "";
        option_error(kBetaOption, "regularized-laplacian series diverges: c * rho = " + format_number(c) + " * " + format_number(rho) + " = " +
                              format_number(c * rho) + " >= 1 (c = beta/(1+beta), rho = spectral radius of W, radius of "
                              "convergence 1/c = " + format_number(1.0 / c) + ")" + hint);
      }
      break;
    }
    case KernelKind::cosine: {
      const double r = cosine_nearest_zero(series_beta(s));
      if (rho > r * (1.0 + kRadiusSlack))
        option_error(kBetaOption, "cosine f series diverges: cos(beta (1 - x)) has a zero at |x| = " + format_number(r) +
                              " < rho = " + format_number(rho) + " (spectral radius of W), so cos(beta L) may be indefinite; "
                              "use beta <= pi/(2 (1 + rho)) = " + format_number(std::numbers::pi / (2.0 * (1.0 + rho))) + scale_note(s));
      break;
    }
    case KernelKind::p_step: {
      const double r = s.shift - 1.0;
      if (std::fmod(s.power, 2.0) != 0.0 && rho > r * (1.0 + kRadiusSlack))
        option_error(kShiftOption, "p-step with odd power " + format_number(s.power) + ": the f series of (1 + x/(shift-1))^(power/2) "
                               "diverges since rho = " + format_number(rho) + " (spectral radius of W) > shift - 1 = " + format_number(r) +
                               "; use shift >= 1 + rho = " + format_number(1.0 + rho));
      break;
    }
    default:
      break;
  }
}

std::vector<double> kernel_alpha(const KernelSpec& s, int n_terms) {
  check_n_terms(n_terms);
  validate_parameters(s);
  return alpha_unchecked(s, n_terms);
}

std::vector<double> modulation_f(std::span<const double> alpha) {
  std::vector<double> f(alpha.size(), 0.0);
  if (alpha.empty()) return f;
  if (!(alpha[0] > 0.0) || !std::isfinite(alpha[0])) option_error(kKernelOption, no_root_message(alpha[0]));
  f[0] = std::sqrt(alpha[0]);
  const double inv_2f0 = 1.0 / (2.0 * f[0]);
  for (std::size_t k = 1; k < alpha.size(); ++k) {
    // sum_{p=1}^{k-1} f_p f_{k-p}: pair p with k-p to halve the work; the middle term appears once.
    double s = 0.0;
    for (std::size_t p = 1; 2 * p < k; ++p) s += f[p] * f[k - p];
    s *= 2.0;
    if (k % 2 == 0) s += f[k / 2] * f[k / 2];
    f[k] = (alpha[k] - s) * inv_2f0;
  }
  return f;
}

std::vector<double> kernel_f(const KernelSpec& s, int n_terms) {
  check_n_terms(n_terms);
  validate_parameters(s);
  switch (s.kind) {
    case KernelKind::diffusion:  // sqrt(e^-beta e^{beta x}) = e^{-beta/2} e^{beta x / 2}
      return scaled_exponential_terms(series_beta(s) / 2.0, std::exp(-series_beta(s) / 2.0), n_terms);
    case KernelKind::exp_adjacency:
      return scaled_exponential_terms(series_beta(s) / 2.0, 1.0, n_terms);
    case KernelKind::regularized_laplacian:  // (1+beta)^{-d/2} (1 - c x)^{-d/2}
      return negative_binomial_terms(s.power / 2.0, reg_c(s), std::pow(1.0 + series_beta(s), -s.power / 2.0), n_terms);
    case KernelKind::p_step: {  // (a-1)^{p/2} (1 + x/(a-1))^{p/2}
      const double a1 = s.shift - 1.0;
      return binomial_terms(s.power / 2.0, 1.0 / a1, std::pow(a1, s.power / 2.0), n_terms);
    }
    case KernelKind::cosine:
    case KernelKind::alpha:
      return modulation_f(alpha_unchecked(s, n_terms));
    case KernelKind::f:
      return padded(s.coefficients, n_terms);
  }
  throw std::logic_error("kernel_f: unhandled KernelKind");
}

std::vector<double> self_convolution(std::span<const double> f, int n_terms) {
  check_n_terms(n_terms);
  std::vector<double> a(static_cast<std::size_t>(n_terms), 0.0);
  const std::size_t m = f.size();
  for (std::size_t k = 0; k < a.size(); ++k) {
    double s = 0.0;
    // p and k-p must both index f.
    const std::size_t lo = k + 1 > m ? k + 1 - m : 0;
    for (std::size_t p = lo; p <= k && p < m; ++p) s += f[p] * f[k - p];
    a[k] = s;
  }
  return a;
}

bool has_negative(std::span<const double> values) {
  return std::any_of(values.begin(), values.end(), [](double v) { return v < 0.0; });
}

double kernel_of_w_eigenvalue(const KernelSpec& s, double w) {
  validate_parameters(s);
  switch (s.kind) {
    case KernelKind::diffusion:
      return std::exp(-series_beta(s) * (1.0 - w));
    case KernelKind::exp_adjacency:
      return std::exp(series_beta(s) * w);
    case KernelKind::regularized_laplacian:
      return std::pow(1.0 + series_beta(s) * (1.0 - w), -s.power);
    case KernelKind::p_step:
      return std::pow(s.shift - 1.0 + w, s.power);
    case KernelKind::cosine:
      return std::cos(series_beta(s) * (1.0 - w));
    case KernelKind::alpha:
      return horner(s.coefficients, w);
    case KernelKind::f: {
      const double phi = horner(s.coefficients, w);
      return phi * phi;
    }
  }
  throw std::logic_error("kernel_of_w_eigenvalue: unhandled KernelKind");
}

double kernel_of_laplacian_eigenvalue(const KernelSpec& s, double l) {
  validate_parameters(s);
  switch (s.kind) {
    case KernelKind::diffusion:
      return std::exp(-series_beta(s) * l);
    case KernelKind::exp_adjacency:
      return std::exp(series_beta(s) * (1.0 - l));
    case KernelKind::regularized_laplacian:
      return std::pow(1.0 + series_beta(s) * l, -s.power);
    case KernelKind::p_step:
      return std::pow(s.shift - l, s.power);
    case KernelKind::cosine:
      return std::cos(series_beta(s) * l);
    case KernelKind::alpha:
    case KernelKind::f:
      return kernel_of_w_eigenvalue(s, 1.0 - l);
  }
  throw std::logic_error("kernel_of_laplacian_eigenvalue: unhandled KernelKind");
}

std::string describe(const KernelSpec& s) {
  auto list = [](const std::vector<double>& c) {
    std::string out = "(";
    const std::size_t shown = std::min<std::size_t>(c.size(), 6);
    for (std::size_t k = 0; k < shown; ++k) out += (k ? ", " : "") + format_number(c[k]);
    if (c.size() > shown) out += ", ... " + std::to_string(c.size()) + " in all";
    return out + ")";
  };
  // Under --weights combinatorial L is D - A and the walk matrix W = I - L/d_max.
  const bool combinatorial = s.laplacian_scale != 1.0;
  const std::string d_max = combinatorial ? ", d_max=" + format_number(s.laplacian_scale) : "";
  const std::string of_l = combinatorial ? ", L = D - A" + d_max : "", of_w = combinatorial ? ", W = I - (D - A)/d_max" + d_max : "";
  switch (s.kind) {
    case KernelKind::diffusion:
      return "diffusion exp(-beta L), beta=" + format_number(s.beta) + of_l;
    case KernelKind::exp_adjacency:
      return "exp-adjacency exp(beta W), beta=" + format_number(s.beta);
    case KernelKind::regularized_laplacian:
      return "regularized-laplacian (I + beta L)^-power, beta=" + format_number(s.beta) + ", power=" + format_number(s.power) + of_l;
    case KernelKind::p_step:
      return "p-step (shift I - L)^power, shift=" + format_number(s.shift) + ", power=" + format_number(s.power);
    case KernelKind::cosine:
      return "cosine cos(beta L), beta=" + format_number(s.beta) + of_l;
    case KernelKind::alpha:
      return "alpha sum_k alpha_k W^k, alpha=" + list(s.coefficients) + of_w;
    case KernelKind::f:
      return "f (sum_k f_k W^k)^2, f=" + list(s.coefficients) + of_w;
  }
  throw std::logic_error("describe: unhandled KernelKind");
}

}  // namespace graphrf
