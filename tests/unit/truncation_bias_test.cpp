// The truncation bias bound of compute_grf against sums written out here, term by term.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "graphrf/grf/grf_pipeline.hpp"
#include "graphrf/grf/kernel.hpp"

namespace graphrf {
namespace {

// sum_{k > T} |alpha_k - kept_k| rho^k with kept_k = sum_{t + s = k, t, s <= T} f_t f_s: the pairwise form.
double pairwise_bound(const std::vector<double>& f, const std::vector<double>& alpha, size_t t_max, double rho) {
  double bound = 0;
  for (size_t k = t_max + 1; k < alpha.size(); ++k) {
    double kept = 0;
    for (size_t t = 0; t <= t_max && t <= k; ++t)
      if (k - t <= t_max) kept += f[t] * f[k - t];
    bound += std::abs(alpha[k] - kept) * std::pow(rho, static_cast<double>(k));
  }
  return bound;
}

TEST(TruncationBias, DiffusionSymmetricIsTheClosedFormOfTheDroppedPairs) {
  // f_t = e^{-beta/2} (beta/2)^t / t! >= 0: the bound is exactly e^{-beta} e^{beta rho} - kept^2 with
  // kept = e^{-beta/2} sum_{t <= T} (beta rho / 2)^t / t!.
  KernelSpec spec;
  spec.kind = KernelKind::diffusion;
  spec.beta = 3.0;
  for (const double rho : {0.5, 1.0}) {
    for (const std::int64_t t_max : {1, 4, 12}) {
      double kept = 0, term = std::exp(-spec.beta / 2.0);
      for (std::int64_t t = 0; t <= t_max; ++t) {
        kept += term;
        term *= spec.beta * rho / 2.0 / static_cast<double>(t + 1);
      }
      const double want = std::exp(-spec.beta + spec.beta * rho) - kept * kept;
      const double got = truncation_bias_bound(spec, GrfEstimator::symmetric, t_max, rho);
      EXPECT_NEAR(got, want, 1e-13 + 1e-10 * want) << "rho " << rho << " T " << t_max;
    }
  }
}

TEST(TruncationBias, SymmetricBoundIsAtLeastThePairwiseBoundAndEqualWhenFIsNonNegative) {
  KernelSpec reg;
  reg.kind = KernelKind::regularized_laplacian;
  reg.beta = 1.0;
  reg.power = 2.0;
  KernelSpec cosine;  // f has entries of both signs
  cosine.kind = KernelKind::cosine;
  cosine.beta = 0.5;
  for (const auto& spec : {reg, cosine}) {
    const std::int64_t t_max = 6;
    const double rho = 0.9;
    const std::vector<double> f = kernel_f(spec, 600), alpha = kernel_alpha(spec, 600);
    bool non_negative = true;
    for (const double x : f) non_negative = non_negative && x >= 0;
    const double pairwise = pairwise_bound(f, alpha, t_max, rho);
    const double got = truncation_bias_bound(spec, GrfEstimator::symmetric, t_max, rho);
    EXPECT_GE(got, pairwise * (1 - 1e-10)) << kernel_kind_name(spec.kind);
    if (non_negative) EXPECT_NEAR(got, pairwise, 1e-10 * pairwise) << kernel_kind_name(spec.kind);
    EXPECT_EQ(non_negative, spec.kind == KernelKind::regularized_laplacian);
  }
}

TEST(TruncationBias, AsymmetricIsTheAlphaTail) {
  KernelSpec spec;
  spec.kind = KernelKind::diffusion;
  spec.beta = 2.0;
  const double rho = 0.8;
  const std::int64_t t_max = 3;
  // alpha_k = e^{-beta} beta^k / k!: the tail is e^{-beta} (e^{beta rho} - sum_{k <= T} (beta rho)^k / k!).
  double head = 0, term = 1;
  for (std::int64_t k = 0; k <= t_max; ++k) {
    head += term;
    term *= spec.beta * rho / static_cast<double>(k + 1);
  }
  const double want = std::exp(-spec.beta) * (std::exp(spec.beta * rho) - head);
  EXPECT_NEAR(truncation_bias_bound(spec, GrfEstimator::asymmetric, t_max, rho), want, 1e-14);
}

TEST(TruncationBias, LongWalkCapsStayCheapAndFinite) {
  // bench-walks runs with --max-length 100000; the pairwise sum took seconds there. rho > 1 (raw weights)
  // must not overflow rho^k.
  KernelSpec spec;
  spec.kind = KernelKind::regularized_laplacian;
  spec.beta = 1.0;
  spec.power = 2.0;
  const double long_cap = truncation_bias_bound(spec, GrfEstimator::symmetric, 100000, 1.0);
  EXPECT_TRUE(std::isfinite(long_cap));
  EXPECT_LT(long_cap, 1e-12);  // f_t ~ 2^-t: nothing is left after 10^5 hops
  EXPECT_GT(truncation_bias_bound(spec, GrfEstimator::symmetric, 4, 1.0), 1e-3);  // ... and much after 4
  KernelSpec diffusion;
  diffusion.kind = KernelKind::diffusion;
  diffusion.beta = 1.0;
  const double b = truncation_bias_bound(diffusion, GrfEstimator::symmetric, 2000, 3.0);
  EXPECT_TRUE(std::isfinite(b));
  EXPECT_LT(b, 1e-12);
}

}  // namespace
}  // namespace graphrf
