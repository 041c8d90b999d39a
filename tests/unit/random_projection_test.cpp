// Frequency draws: orthogonality, Gaussian marginals, chi_d norms, pairwise norm coupling, antithetic
// layout, determinism. Statistical checks use the Dvoretzky-Kiefer-Wolfowitz inequality (Massart's
// constant): for n i.i.d. samples, P(sup |F_n - F| > eps) <= 2 exp(-2 n eps^2), so the Kolmogorov-Smirnov
// statistic stays below eps = sqrt(ln(2/alpha) / (2n)) except with probability alpha = 1e-6. This bound
// is exact for every n (not asymptotic).
#include "graphrf/attention/random_projection.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "graphrf/core/error.hpp"

using namespace graphrf;

namespace {

constexpr double kAlpha = 1e-6;

double ks_critical_value(int n) { return std::sqrt(std::log(2.0 / kAlpha) / (2.0 * n)); }

// sup |F_n - F| for the samples (sorted in place).
double ks_statistic(std::vector<double>& x, const std::function<double(double)>& cdf) {
  std::sort(x.begin(), x.end());
  const double n = static_cast<double>(x.size());
  double d = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double f = cdf(x[i]);
    d = std::max({d, (static_cast<double>(i) + 1) / n - f, f - static_cast<double>(i) / n});
  }
  return d;
}

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

}  // namespace

TEST(FeatureProjection, ParsesDrawNamesAndRejectsUnknownOnesNamingTheOption) {
  EXPECT_EQ(parse_frequency_draw("iid"), FrequencyDraw::iid);
  EXPECT_EQ(parse_frequency_draw("orthogonal"), FrequencyDraw::orthogonal);
  EXPECT_EQ(parse_frequency_draw("orthogonal+pnc"), FrequencyDraw::orthogonal_pnc);
  for (auto d : {FrequencyDraw::iid, FrequencyDraw::orthogonal, FrequencyDraw::orthogonal_pnc})
    EXPECT_EQ(parse_frequency_draw(frequency_draw_name(d)), d);
  try {
    parse_frequency_draw("pnc");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("features.draw"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'pnc'"), std::string::npos) << e.what();
  }
}

TEST(FeatureProjection, ChiQuantileInvertsTheCdf) {
  for (int dim : {1, 2, 5, 16, 64})
    for (double u : {1e-12, 1e-4, 0.1, 0.5, 0.9, 1 - 1e-9}) {
      EXPECT_NEAR(chi_cdf(dim, chi_quantile(dim, u)), u, 1e-13 * std::max(1.0, u) + 1e-14 * u) << dim << " " << u;
      EXPECT_NEAR(1 - chi_cdf(dim, chi_upper_quantile(dim, u)), u, 1e-13) << dim << " " << u;
    }
  // chi_1 is |N(0,1)|: F(r) = erf(r / sqrt 2).
  EXPECT_NEAR(chi_cdf(1, 1.3), std::erf(1.3 / std::sqrt(2.0)), 1e-15);
  // chi_2 is Rayleigh: F(r) = 1 - exp(-r^2/2).
  EXPECT_NEAR(chi_cdf(2, 0.7), 1 - std::exp(-0.245), 1e-15);
}

TEST(FeatureProjection, ShapesAndBitIdenticalRepeatDraws) {
  for (auto draw : {FrequencyDraw::iid, FrequencyDraw::orthogonal, FrequencyDraw::orthogonal_pnc})
    for (bool anti : {false, true}) {
      const Eigen::MatrixXd a = draw_frequencies(10, 3, draw, anti, 42);
      const Eigen::MatrixXd b = draw_frequencies(10, 3, draw, anti, 42);
      const Eigen::MatrixXd c = draw_frequencies(10, 3, draw, anti, 43);
      ASSERT_EQ(a.rows(), 10);
      ASSERT_EQ(a.cols(), 3);
      EXPECT_TRUE(a.allFinite());
      EXPECT_EQ(a, b);  // exact: counter-based draws
      EXPECT_NE(a, c);
    }
  EXPECT_EQ(draw_frequencies(0, 3, FrequencyDraw::orthogonal, false, 1).rows(), 0);
  EXPECT_THROW(draw_frequencies(5, 3, FrequencyDraw::iid, true, 1), std::invalid_argument);
  EXPECT_THROW(draw_frequencies(4, 0, FrequencyDraw::iid, false, 1), std::invalid_argument);
}

TEST(FeatureProjection, LargerMExtendsSmallerM) {
  // Blocks are keyed by their index, and the last block is truncated, so the first rows do not depend on m.
  for (auto draw : {FrequencyDraw::iid, FrequencyDraw::orthogonal, FrequencyDraw::orthogonal_pnc}) {
    const Eigen::MatrixXd small = draw_frequencies(6, 4, draw, false, 9);
    const Eigen::MatrixXd large = draw_frequencies(13, 4, draw, false, 9);
    EXPECT_EQ(small, large.topRows(6)) << frequency_draw_name(draw);
  }
}

TEST(FeatureProjection, RowsOfEachOrthogonalBlockAreOrthogonal) {
  // d = 7, m = 20: blocks of 7, 7 and a truncated 6. Householder QR gives directions orthonormal to
  // ~1e-15, far below the 1e-12 bound; rows of different blocks are independent and not orthogonal.
  const int d = 7, m = 20;
  for (auto draw : {FrequencyDraw::orthogonal, FrequencyDraw::orthogonal_pnc})
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
      const Eigen::MatrixXd w = draw_frequencies(m, d, draw, false, seed);
      for (int i = 0; i < m; ++i)
        for (int j = i + 1; j < m && j / d == i / d; ++j) {
          const double cosine = std::abs(w.row(i).dot(w.row(j))) / (w.row(i).norm() * w.row(j).norm());
          EXPECT_LT(cosine, 1e-12) << "rows " << i << ", " << j;
        }
      // Across blocks: |cos| of two independent uniform directions in R^7 is below 1e-6 with probability ~1e-6
      // per pair; assert only that not all of them vanish.
      double largest = 0;
      for (int i = 0; i < d; ++i)
        for (int j = d; j < 2 * d; ++j)
          largest = std::max(largest, std::abs(w.row(i).dot(w.row(j))) / (w.row(i).norm() * w.row(j).norm()));
      EXPECT_GT(largest, 1e-3);
    }
}

TEST(FeatureProjection, EveryRowIsMarginallyStandardGaussian) {
  // Haar direction times an independent chi_d norm is N(0, I_d); with PNC each norm is still chi_d. One
  // sample per seed (independent seeds) of entries (0,0) and (2,1) against the N(0,1) CDF. The (0,0) entry
  // also checks the sign fix: without Q diag(sign R), Eigen's Householder Q has Q(0,0) < 0 always.
  const int n = 2000, d = 5;
  for (auto draw : {FrequencyDraw::iid, FrequencyDraw::orthogonal, FrequencyDraw::orthogonal_pnc}) {
    std::vector<double> a, b;
    int positive = 0;
    for (int s = 0; s < n; ++s) {
      const Eigen::MatrixXd w = draw_frequencies(d, d, draw, false, 1000 + static_cast<std::uint64_t>(s));
      a.push_back(w(0, 0));
      b.push_back(w(2, 1));
      positive += w(0, 0) > 0;
    }
    EXPECT_LT(ks_statistic(a, normal_cdf), ks_critical_value(n)) << frequency_draw_name(draw);
    EXPECT_LT(ks_statistic(b, normal_cdf), ks_critical_value(n)) << frequency_draw_name(draw);
    // Binomial(2000, 1/2): sd 22.4; 5 sd (112) is exceeded with probability ~6e-7.
    EXPECT_LT(std::abs(positive - n / 2), 112) << frequency_draw_name(draw);
  }
}

TEST(FeatureProjection, PairwiseNormCouplingGivesComplementaryChiQuantiles) {
  // d = 5, m = 12: blocks of 5, 5, 2; pairs (0,1), (2,3) in each block, row 4 of a block is independent.
  const int d = 5, m = 12;
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    const Eigen::MatrixXd w = draw_frequencies(m, d, FrequencyDraw::orthogonal_pnc, false, seed);
    for (int start = 0; start < m; start += d)
      for (int j = 0; start + 2 * j + 1 < std::min(m, start + d) && 2 * j + 1 < d; ++j) {
        const double fa = chi_cdf(d, w.row(start + 2 * j).norm());
        const double fb = chi_cdf(d, w.row(start + 2 * j + 1).norm());
        EXPECT_NEAR(fa + fb, 1.0, 1e-10) << "seed " << seed << " rows " << start + 2 * j;
      }
  }
}

TEST(FeatureProjection, NormsAreChiDistributedUnderEveryOrthogonalDraw) {
  // KS against the chi_5 CDF over 2000 independent seeds: rows 0 and 1 (a coupled pair: F^-1(u) and
  // F^-1(1-u)), row 4 (the odd leftover, independent norm), and row 0 of plain orthogonal blocks.
  const int n = 2000, d = 5;
  std::vector<double> r0, r1, r4, plain;
  for (int s = 0; s < n; ++s) {
    const auto seed = 77 + static_cast<std::uint64_t>(s);
    const Eigen::MatrixXd w = draw_frequencies(d, d, FrequencyDraw::orthogonal_pnc, false, seed);
    r0.push_back(w.row(0).norm());
    r1.push_back(w.row(1).norm());
    r4.push_back(w.row(4).norm());
    plain.push_back(draw_frequencies(d, d, FrequencyDraw::orthogonal, false, seed).row(0).norm());
  }
  auto cdf = [](double r) { return chi_cdf(5, r); };
  const double crit = ks_critical_value(n);  // 0.060
  EXPECT_LT(ks_statistic(r0, cdf), crit);
  EXPECT_LT(ks_statistic(r1, cdf), crit);
  EXPECT_LT(ks_statistic(r4, cdf), crit);
  EXPECT_LT(ks_statistic(plain, cdf), crit);
}

TEST(FeatureProjection, AntitheticSecondHalfIsMinusTheFirst) {
  for (auto draw : {FrequencyDraw::iid, FrequencyDraw::orthogonal, FrequencyDraw::orthogonal_pnc}) {
    const Eigen::MatrixXd w = draw_frequencies(10, 3, draw, true, 5);
    EXPECT_EQ(w.bottomRows(5), (-w.topRows(5)).eval()) << frequency_draw_name(draw);
    // The first half is the plain draw of m/2 rows.
    EXPECT_EQ(w.topRows(5), draw_frequencies(5, 3, draw, false, 5)) << frequency_draw_name(draw);
  }
}
