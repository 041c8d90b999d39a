// Kernel coefficients alpha, modulation functions f and their validation (Reid et al. 2025a, "Linear transformer
// topological masking with graph random features", Eq. 4 and Lemma 3.1). Every expected value is computed here
// independently: closed forms via std::tgamma / std::pow, and cosine values from a Taylor expansion done outside
// this code.
#include "graphrf/grf/kernel.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>
#include <limits>
#include <numbers>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "graphrf/core/error.hpp"
#include "kernel_test_support.hpp"

using namespace graphrf;
using graphrf::testing::named;

namespace {

KernelSpec user(KernelKind kind, std::vector<double> c) {
  KernelSpec s;
  s.kind = kind;
  s.coefficients = std::move(c);
  return s;
}

// Generalised binomial binom(r, k) as a product (independent of the library's recurrences' ordering).
double gbinom(double r, int k) {
  double b = 1.0;
  for (int j = 0; j < k; ++j) b *= (r - j) / (j + 1);
  return b;
}

double factorial(int k) { return std::tgamma(k + 1.0); }

// Runs `fn`, expects an InputError whose one-line message contains every string in `parts`.
template <class Fn>
void expect_input_error(Fn&& fn, std::initializer_list<std::string> parts) {
  try {
    fn();
    ADD_FAILURE() << "expected InputError containing '" << *parts.begin() << "'";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    for (const auto& p : parts) EXPECT_NE(what.find(p), std::string::npos) << "'" << p << "' not in: " << what;
  }
}

void expect_relative_near(const std::vector<double>& got, const std::vector<double>& want, double rel) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t k = 0; k < got.size(); ++k)
    EXPECT_NEAR(got[k], want[k], rel * std::abs(want[k]) + 1e-300) << "k = " << k;
}

// The named kernels with the parameters used across these tests.
std::vector<KernelSpec> named_kernels() {
  return {named(KernelKind::diffusion, 1.3),
          named(KernelKind::exp_adjacency, 2.0),
          named(KernelKind::regularized_laplacian, 0.5, 1.0),
          named(KernelKind::regularized_laplacian, 0.5, 2.5),
          named(KernelKind::p_step, 1.0, 3.0, 2.5),
          named(KernelKind::cosine, std::numbers::pi / 4)};
}

}  // namespace

TEST(Kernel, ParseKindRoundTripsAndRejectsUnknownNames) {
  for (const char* name : {"diffusion", "exp-adjacency", "regularized-laplacian", "p-step", "cosine", "alpha", "f"})
    EXPECT_EQ(kernel_kind_name(parse_kernel_kind(name)), name);
  EXPECT_EQ(parse_kernel_kind("p-step"), KernelKind::p_step);
  expect_input_error([] { parse_kernel_kind("heat"); },
                     {"kernel.kind: unknown kernel 'heat' (expected ", "diffusion", "regularized-laplacian", "cosine"});
  expect_input_error([] { parse_kernel_kind("Diffusion"); }, {"kernel.kind"});
}

TEST(Kernel, AlphaMatchesClosedFormsWithPrefactors) {
  const int n = 25;
  const double b = 1.3;
  std::vector<double> want(n);
  for (int k = 0; k < n; ++k) want[k] = std::exp(-b) * std::pow(b, k) / factorial(k);
  expect_relative_near(kernel_alpha(named(KernelKind::diffusion, b), n), want, 1e-13);

  for (int k = 0; k < n; ++k) want[k] = std::pow(2.0, k) / factorial(k);
  expect_relative_near(kernel_alpha(named(KernelKind::exp_adjacency, 2.0), n), want, 1e-13);

  for (double d : {1.0, 2.0, 2.5}) {
    const double beta = 0.7, c = beta / (1 + beta);
    for (int k = 0; k < n; ++k)
      want[k] = std::pow(1 + beta, -d) * std::tgamma(d + k) / (std::tgamma(d) * factorial(k)) * std::pow(c, k);
    expect_relative_near(kernel_alpha(named(KernelKind::regularized_laplacian, beta, d), n), want, 1e-12);
  }

  // p-step, integer power: ordinary binomials, a finite series.
  const int p = 3;
  const double a = 2.5;
  const double binom3[] = {1, 3, 3, 1};
  for (int k = 0; k < n; ++k) want[k] = k <= p ? std::pow(a - 1, p) * binom3[k] * std::pow(a - 1, -k) : 0.0;
  const auto ps = kernel_alpha(named(KernelKind::p_step, 1.0, p, a), n);
  expect_relative_near(ps, want, 1e-14);
  for (int k = p + 1; k < n; ++k) EXPECT_EQ(ps[k], 0.0);

  const double t = 0.9;
  for (int k = 0; k < n; ++k)
    want[k] = ((k / 2) % 2 ? -1.0 : 1.0) * std::pow(t, k) / factorial(k) * (k % 2 ? std::sin(t) : std::cos(t));
  expect_relative_near(kernel_alpha(named(KernelKind::cosine, t), n), want, 1e-13);
}

TEST(Kernel, AlphaSeriesSumsToTheClosedFormAtEachEigenvalue) {
  // sum_k alpha_k lambda^k over 80 terms against kernel_of_w_eigenvalue, and the L-form against the W-form.
  for (const auto& spec : named_kernels()) {
    const auto alpha = kernel_alpha(spec, 80);
    for (double lw = -1.0; lw <= 1.0; lw += 0.125) {
      double s = 0.0, x = 1.0;
      for (double ak : alpha) {
        s += ak * x;
        x *= lw;
      }
      const double g = kernel_of_w_eigenvalue(spec, lw);
      EXPECT_NEAR(s, g, 1e-13 * std::max(1.0, std::abs(g))) << describe(spec) << " at " << lw;
      EXPECT_NEAR(kernel_of_laplacian_eigenvalue(spec, 1.0 - lw), g, 1e-13 * std::max(1.0, std::abs(g)));
    }
  }
  // Spot values of the closed forms.
  EXPECT_NEAR(kernel_of_laplacian_eigenvalue(named(KernelKind::diffusion, 2.0), 0.5), std::exp(-1.0), 1e-15);
  EXPECT_NEAR(kernel_of_laplacian_eigenvalue(named(KernelKind::regularized_laplacian, 2.0, 2.0), 0.5), 0.25, 1e-15);
  EXPECT_NEAR(kernel_of_laplacian_eigenvalue(named(KernelKind::p_step, 1.0, 2.0, 3.0), 0.5), 6.25, 1e-14);
  EXPECT_NEAR(kernel_of_laplacian_eigenvalue(named(KernelKind::cosine, 0.5), 2.0), std::cos(1.0), 1e-15);
  EXPECT_NEAR(kernel_of_w_eigenvalue(named(KernelKind::exp_adjacency, 3.0), -0.5), std::exp(-1.5), 1e-15);
  EXPECT_NEAR(kernel_of_w_eigenvalue(user(KernelKind::alpha, {1, 2, 3}), 0.5), 2.75, 1e-15);
  EXPECT_NEAR(kernel_of_w_eigenvalue(user(KernelKind::f, {1, 2, 3}), 0.5), 2.75 * 2.75, 1e-14);
  EXPECT_NEAR(kernel_of_laplacian_eigenvalue(user(KernelKind::f, {1, 2, 3}), 0.5), 2.75 * 2.75, 1e-14);
}

TEST(Kernel, SelfConvolutionIsTheDiscreteConvolution) {
  const std::vector<double> f = {1, 2, 3};
  EXPECT_EQ(self_convolution(f, 5), (std::vector<double>{1, 4, 10, 12, 9}));
  EXPECT_EQ(self_convolution(f, 3), (std::vector<double>{1, 4, 10}));
  EXPECT_EQ(self_convolution(f, 7), (std::vector<double>{1, 4, 10, 12, 9, 0, 0}));
  EXPECT_TRUE(self_convolution(f, 0).empty());
  EXPECT_THROW(self_convolution(f, -1), std::invalid_argument);
}

TEST(Kernel, DeconvolutionInvertsSelfConvolution) {
  // Random alpha with alpha_0 > 0 and geometrically decaying tails, and every named kernel.
  std::mt19937 rng(20250101);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<double> alpha(40);
    alpha[0] = 0.5 + std::abs(u(rng));
    for (std::size_t k = 1; k < alpha.size(); ++k) alpha[k] = u(rng) * std::pow(0.6, static_cast<double>(k));
    const auto f = modulation_f(alpha);
    ASSERT_EQ(f.size(), alpha.size());
    EXPECT_GT(f[0], 0.0);
    const auto back = self_convolution(f, static_cast<int>(alpha.size()));
    for (std::size_t k = 0; k < alpha.size(); ++k) EXPECT_NEAR(back[k], alpha[k], 1e-13) << "trial " << trial;
  }
  for (const auto& spec : named_kernels()) {
    const auto alpha = kernel_alpha(spec, 60);
    const auto back = self_convolution(modulation_f(alpha), 60);
    for (std::size_t k = 0; k < alpha.size(); ++k) EXPECT_NEAR(back[k], alpha[k], 1e-13) << describe(spec);
    // kernel_f (closed forms where available) convolves back to alpha too.
    const auto back2 = self_convolution(kernel_f(spec, 60), 60);
    for (std::size_t k = 0; k < alpha.size(); ++k) EXPECT_NEAR(back2[k], alpha[k], 1e-13) << describe(spec);
  }
  EXPECT_TRUE(modulation_f(std::vector<double>{}).empty());
}

TEST(Kernel, RecursionReproducesTheDocumentedClosedFormF) {
  // Closed forms with our prefactors: f for M = P * (series) is sqrt(P) * (f of the series).
  // The recursion subtracts nearly equal numbers (its relative error grows like 2^k eps for diffusion), so it
  // is compared in absolute terms; kernel_f uses the closed forms and is compared relatively.
  const int n = 30;
  auto check = [&](const KernelSpec& spec, const std::vector<double>& want) {
    const auto rec = modulation_f(kernel_alpha(spec, n));
    for (int k = 0; k < n; ++k) EXPECT_NEAR(rec[k], want[k], 1e-13) << describe(spec) << " k = " << k;
    expect_relative_near(kernel_f(spec, n), want, 1e-13);
  };
  std::vector<double> want(n);

  const double b = 1.3;  // diffusion: f_k = e^{-beta/2} (beta/2)^k / k!
  for (int k = 0; k < n; ++k) want[k] = std::exp(-b / 2) * std::pow(b / 2, k) / factorial(k);
  check(named(KernelKind::diffusion, b), want);
  for (int k = 0; k < n; ++k) want[k] = std::pow(b / 2, k) / factorial(k);
  check(named(KernelKind::exp_adjacency, b), want);

  const double beta = 0.8, c = beta / (1 + beta);
  // d = 1: f_k = binom(2k, k) 4^-k c^k, prefactor (1+beta)^{-1/2}.
  for (int k = 0; k < n; ++k)
    want[k] = std::pow(1 + beta, -0.5) * std::tgamma(2.0 * k + 1) / (factorial(k) * factorial(k)) *
              std::pow(4.0, -k) * std::pow(c, k);
  check(named(KernelKind::regularized_laplacian, beta, 1.0), want);
  // d = 2: f_k = c^k, prefactor (1+beta)^{-1}.
  for (int k = 0; k < n; ++k) want[k] = std::pow(c, k) / (1 + beta);
  check(named(KernelKind::regularized_laplacian, beta, 2.0), want);
  // d = 3: f_k = Gamma(3/2 + k) / (Gamma(3/2) k!) c^k, prefactor (1+beta)^{-3/2}.
  for (int k = 0; k < n; ++k)
    want[k] = std::pow(1 + beta, -1.5) * std::tgamma(1.5 + k) / (std::tgamma(1.5) * factorial(k)) * std::pow(c, k);
  check(named(KernelKind::regularized_laplacian, beta, 3.0), want);

  const double a = 3.0;  // p-step p = 2: f = (a-1) * (1, 1/(a-1)) = (a-1, 1), then exactly zero.
  std::fill(want.begin(), want.end(), 0.0);
  want[0] = a - 1;
  want[1] = 1.0;
  check(named(KernelKind::p_step, 1.0, 2.0, a), want);
  EXPECT_EQ(kernel_f(named(KernelKind::p_step, 1.0, 2.0, a), n)[2], 0.0);
  // p = 3: f_k = (a-1)^{3/2} binom(3/2, k) (a-1)^-k, infinite and alternating.
  for (int k = 0; k < n; ++k) want[k] = std::pow(a - 1, 1.5) * gbinom(1.5, k) * std::pow(a - 1, -k);
  check(named(KernelKind::p_step, 1.0, 3.0, a), want);
  EXPECT_TRUE(has_negative(want));
}

TEST(Kernel, CosineAtQuarterPiMatchesTheDocumentedF) {
  // cos(a L) = cos(a (1 - W)), so f holds the Taylor coefficients of sqrt(cos(a (1 - x))) at x = 0; for a = pi/4
  // they are 0.8409, 0.3302, -0.1945, 0.0424, -0.0325 (expanded symbolically), i.e. to three decimals f = 0.841,
  // 0.330, -0.194, 0.042, -0.033, with the prefactors cos(a), sin(a) kept in alpha, as here: f_0 = sqrt(cos(pi/4))
  // = 0.8409. Nothing is divided out.
  const auto f = kernel_f(named(KernelKind::cosine, std::numbers::pi / 4), 10);
  const double documented[] = {0.841, 0.330, -0.194, 0.042, -0.033};
  for (int k = 0; k < 5; ++k) EXPECT_NEAR(f[k], documented[k], 1e-3) << "k = " << k;
  EXPECT_NEAR(f[0], std::sqrt(std::cos(std::numbers::pi / 4)), 1e-15);
  EXPECT_NEAR(f[1], (std::numbers::pi / 4) * std::sin(std::numbers::pi / 4) / (2 * f[0]), 1e-15);
  EXPECT_TRUE(has_negative(f));
  EXPECT_FALSE(has_negative(kernel_f(named(KernelKind::diffusion, 1.0), 10)));
  EXPECT_FALSE(has_negative(kernel_f(named(KernelKind::regularized_laplacian, 1.0, 1.5), 10)));
}

TEST(Kernel, UserCoefficientsArePaddedOrTruncated) {
  const auto a = user(KernelKind::alpha, {1.0, 0.5, 0.25});
  EXPECT_EQ(kernel_alpha(a, 5), (std::vector<double>{1.0, 0.5, 0.25, 0.0, 0.0}));
  EXPECT_EQ(kernel_alpha(a, 2), (std::vector<double>{1.0, 0.5}));
  const auto f = user(KernelKind::f, {1.0, 2.0, 3.0});
  EXPECT_EQ(kernel_f(f, 4), (std::vector<double>{1.0, 2.0, 3.0, 0.0}));
  EXPECT_EQ(kernel_f(f, 2), (std::vector<double>{1.0, 2.0}));
  EXPECT_EQ(kernel_alpha(f, 6), (std::vector<double>{1, 4, 10, 12, 9, 0}));
  // f_0 = 0 is allowed for a user f (no square root is taken): M = W^2 for f = (0, 1).
  EXPECT_NO_THROW(validate(user(KernelKind::f, {0.0, 1.0}), 1.0));
  EXPECT_TRUE(kernel_alpha(named(KernelKind::diffusion), 0).empty());
  EXPECT_THROW(kernel_f(named(KernelKind::diffusion), -1), std::invalid_argument);
}

TEST(Kernel, FSeriesRadius) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(f_series_radius(named(KernelKind::diffusion)), inf);
  EXPECT_EQ(f_series_radius(named(KernelKind::p_step, 1.0, 2.0, 3.0)), inf);
  EXPECT_DOUBLE_EQ(f_series_radius(named(KernelKind::p_step, 1.0, 3.0, 3.0)), 2.0);
  EXPECT_DOUBLE_EQ(f_series_radius(named(KernelKind::regularized_laplacian, 1.0, 1.0)), 2.0);
  // cos(beta (1 - x)) = 0 nearest to 0: beta (1 - x) = pi/2, x = 1 - pi/(2 beta).
  EXPECT_NEAR(f_series_radius(named(KernelKind::cosine, std::numbers::pi / 4)), 1.0, 1e-15);
  EXPECT_NEAR(f_series_radius(named(KernelKind::cosine, 0.5)), std::numbers::pi - 1.0, 1e-14);
  // alpha = 1 + 3x + x^2: roots (-3 +- sqrt 5)/2, smallest modulus 0.381966.
  EXPECT_NEAR(f_series_radius(user(KernelKind::alpha, {1.0, 3.0, 1.0})), (3.0 - std::sqrt(5.0)) / 2, 1e-14);
  EXPECT_EQ(f_series_radius(user(KernelKind::alpha, {2.0, 0.0})), inf);
}

TEST(Kernel, DescribeIsOneLine) {
  EXPECT_EQ(describe(named(KernelKind::diffusion, 1.0)), "diffusion exp(-beta L), beta=1");
  EXPECT_EQ(describe(named(KernelKind::regularized_laplacian, 0.5, 2.0)),
            "regularized-laplacian (I + beta L)^-power, beta=0.5, power=2");
  EXPECT_EQ(describe(named(KernelKind::p_step, 1.0, 2.0, 3.0)), "p-step (shift I - L)^power, shift=3, power=2");
  EXPECT_EQ(describe(user(KernelKind::f, {1, 0.5})), "f (sum_k f_k W^k)^2, f=(1, 0.5)");
  EXPECT_EQ(describe(user(KernelKind::alpha, {1, 2, 3, 4, 5, 6, 7, 8})),
            "alpha sum_k alpha_k W^k, alpha=(1, 2, 3, 4, 5, 6, ... 8 in all)");
  for (const auto& spec : named_kernels()) EXPECT_EQ(describe(spec).find('\n'), std::string::npos);
}

TEST(Kernel, BadInputThrowsInputErrorNamingTheOption) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  // The exact one-line message for the common case.
  try {
    validate(named(KernelKind::diffusion, -1.0), 1.0);
    ADD_FAILURE() << "no throw";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "kernel.beta: diffusion needs beta > 0 (got -1)");
  }
  for (KernelKind k : {KernelKind::diffusion, KernelKind::exp_adjacency, KernelKind::regularized_laplacian,
                       KernelKind::cosine})
    for (double b : {0.0, -0.5, nan, inf})
      expect_input_error([&] { validate(named(k, b), 1.0); }, {"kernel.beta: ", "beta"});
  for (KernelKind k : {KernelKind::diffusion, KernelKind::exp_adjacency, KernelKind::cosine})
    expect_input_error([&] { validate(named(k, 800.0), 1.0); }, {"kernel.beta: ", "beta <= 700"});

  expect_input_error([] { validate(named(KernelKind::regularized_laplacian, 1.0, 0.0), 1.0); },
                     {"kernel.power: ", "power > 0 (got 0)"});
  expect_input_error([] { validate(named(KernelKind::regularized_laplacian, 1.0, -2.0), 1.0); }, {"kernel.power: "});
  expect_input_error([&] { validate(named(KernelKind::regularized_laplacian, 1.0, nan), 1.0); }, {"kernel.power: "});
  expect_input_error([] { validate(named(KernelKind::regularized_laplacian, 1e10, 40.0), 1.0); },
                     {"kernel.power: ", "underflows"});

  expect_input_error([] { validate(named(KernelKind::p_step, 1.0, 2.5, 2.0), 1.0); },
                     {"kernel.power: ", "integer power >= 1 (got 2.5)"});
  expect_input_error([] { validate(named(KernelKind::p_step, 1.0, 0.0, 2.0), 1.0); }, {"kernel.power: "});
  expect_input_error([] { validate(named(KernelKind::p_step, 1.0, 5000.0, 2.0), 1.0); }, {"kernel.power: "});
  expect_input_error([] { validate(named(KernelKind::p_step, 1.0, 2.0, 1.5), 1.0); },
                     {"kernel.shift: ", "shift >= 2 (got 1.5)"});
  expect_input_error([&] { validate(named(KernelKind::p_step, 1.0, 2.0, nan), 1.0); }, {"kernel.shift: "});

  // cos(beta) <= 0: alpha_0 <= 0, no real f.
  expect_input_error([] { validate(named(KernelKind::cosine, 2.0), 1.0); },
                     {"kernel.beta: ", "alpha_0", "<= 0: the kernel has no real square root f (f_0 = sqrt(alpha_0))"});

  // User coefficients.
  expect_input_error([] { validate(user(KernelKind::alpha, {0.0, 1.0}), 1.0); },
                     {"kernel.alpha: alpha_0 = 0 <= 0: the kernel has no real square root f"});
  expect_input_error([] { validate(user(KernelKind::alpha, {-1.0}), 1.0); }, {"kernel.alpha: ", "alpha_0 = -1"});
  expect_input_error([] { validate(user(KernelKind::alpha, {}), 1.0); }, {"kernel.alpha: ", "at least one"});
  expect_input_error([&] { validate(user(KernelKind::alpha, {1.0, nan}), 1.0); },
                     {"kernel.alpha: ", "alpha_1", "not finite"});
  expect_input_error([&] { validate(user(KernelKind::f, {1.0, 2.0, inf}), 1.0); },
                     {"kernel.f: ", "f_2", "not finite"});
  expect_input_error([] { validate(user(KernelKind::f, {}), 1.0); }, {"kernel.f: "});
  expect_input_error([] { validate(user(KernelKind::f, {0.0, 0.0}), 1.0); }, {"kernel.f: ", "zero"});

  // Divergence. Regularized: c rho < 1 with c = 1/2 needs rho < 2.
  EXPECT_NO_THROW(validate(named(KernelKind::regularized_laplacian, 1.0, 1.0), 1.9));
  expect_input_error([] { validate(named(KernelKind::regularized_laplacian, 1.0, 1.0), 2.0); },
                     {"kernel.beta: ", "diverges", "c * rho", "radius of convergence 1/c = 2"});
  // Cosine: beta = pi/4 reaches the radius 1 exactly (allowed); beta = 1 has a zero at |x| = 0.57 < 1.
  EXPECT_NO_THROW(validate(named(KernelKind::cosine, std::numbers::pi / 4), 1.0));
  expect_input_error([] { validate(named(KernelKind::cosine, 1.0), 1.0); }, {"kernel.beta: ", "cosine f series diverges"});
  // Odd p-step: the f series needs rho <= shift - 1; even p-step has a finite f.
  EXPECT_NO_THROW(validate(named(KernelKind::p_step, 1.0, 3.0, 2.0), 1.0));
  expect_input_error([] { validate(named(KernelKind::p_step, 1.0, 3.0, 2.0), 1.5); }, {"kernel.shift: ", "diverges"});
  EXPECT_NO_THROW(validate(named(KernelKind::p_step, 1.0, 2.0, 2.0), 5.0));
  EXPECT_THROW(validate(named(KernelKind::diffusion), -1.0), std::invalid_argument);

  // The low-level entry points check too.
  expect_input_error([] { modulation_f(std::vector<double>{-2.0, 1.0}); },
                     {"kernel.kind: alpha_0 = -2 <= 0: the kernel has no real square root f (f_0 = sqrt(alpha_0))"});
  expect_input_error([] { modulation_f(std::vector<double>{0.0}); }, {"kernel.kind: ", "alpha_0 = 0"});
  expect_input_error([] { kernel_alpha(named(KernelKind::diffusion, -1.0), 5); }, {"kernel.beta: "});
  expect_input_error([] { kernel_f(named(KernelKind::cosine, 3.0), 5); }, {"kernel.beta: ", "alpha_0"});
  expect_input_error([] { kernel_of_w_eigenvalue(named(KernelKind::p_step, 1.0, 1.5), 0.0); }, {"kernel.power: "});
}
