#include "graphrf/core/counter_rng.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

using namespace graphrf;

TEST(CounterRng, SameKeySameBitsDifferentDomainDifferentBits) {
  EXPECT_EQ(philox_block(7, RngDomain::walk_step, 11, 2, 3), philox_block(7, RngDomain::walk_step, 11, 2, 3));
  EXPECT_NE(philox_block(7, RngDomain::walk_step, 11, 2, 3), philox_block(7, RngDomain::walk_length, 11, 2, 3));
  EXPECT_NE(philox_block(7, RngDomain::walk_step, 11, 2, 3), philox_block(8, RngDomain::walk_step, 11, 2, 3));
}

TEST(CounterRng, UniformMeanAndNormalMoments) {
  // n = 200000 draws: the standard error of the uniform mean is sqrt(1/12/n) = 6.5e-4, of the normal mean
  // 2.2e-3 and of the normal variance sqrt(2/n) = 3.2e-3. Bounds at 6 standard errors fail with p < 1e-8.
  const int n = 200000;
  double su = 0, sn = 0, sn2 = 0;
  for (int i = 0; i < n; ++i) {
    auto w = philox_block(1, RngDomain::feature_draw, static_cast<std::uint64_t>(i));
    su += unit_uniform(w[0]);
    auto [z0, z1] = standard_normal_pair(w[1], w[2]);
    sn += z0 + z1;
    sn2 += z0 * z0 + z1 * z1;
  }
  EXPECT_NEAR(su / n, 0.5, 6 * 6.5e-4);
  EXPECT_NEAR(sn / (2 * n), 0.0, 6 * 1.6e-3);
  EXPECT_NEAR(sn2 / (2 * n), 1.0, 6 * 2.3e-3);
}

TEST(CounterRng, UniformBelowStaysInRangeAndCoversIt) {
  std::vector<int> hits(7, 0);
  for (std::uint64_t i = 0; i < 7000; ++i) {
    auto k = uniform_below(philox_block(3, RngDomain::walk_step, i)[0], 7);
    ASSERT_LT(k, 7u);
    ++hits[k];
  }
  // Each bin expects 1000 with sd ~29; 800 is ~7 sd away (p < 1e-11 per bin).
  for (int h : hits) EXPECT_GT(h, 800);
}
