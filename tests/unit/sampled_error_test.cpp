// The sampled relative error and the node sample, against direct computations.
#include "graphrf/reference/node_sample.hpp"
#include "graphrf/reference/sampled_error.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

using namespace graphrf;

TEST(NodeSample, DistinctSortedInRangeAndKeyedBySeed) {
  const auto a = sample_node_indices(1000, 64, 7), b = sample_node_indices(1000, 64, 7), c = sample_node_indices(1000, 64, 8);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  ASSERT_EQ(a.size(), 64u);
  EXPECT_TRUE(std::is_sorted(a.begin(), a.end()));
  EXPECT_EQ(std::set<std::int64_t>(a.begin(), a.end()).size(), 64u);
  EXPECT_GE(a.front(), 0);
  EXPECT_LT(a.back(), 1000);
  const auto all = sample_node_indices(10, 50, 1);
  std::vector<std::int64_t> expected(10);
  std::iota(expected.begin(), expected.end(), 0);
  EXPECT_EQ(all, expected);
}

TEST(NodeSample, EveryNodeEquallyLikely) {
  // 2000 samples of 5 out of 20: each node's count is Binomial(2000, 1/4), sd 19.4; |count - 500| > 6 sd has
  // probability 2e-9 per node, 4e-8 for the 20 nodes.
  std::vector<int> count(20, 0);
  for (std::uint64_t seed = 0; seed < 2000; ++seed)
    for (const auto i : sample_node_indices(20, 5, seed)) ++count[static_cast<size_t>(i)];
  for (const int c : count) EXPECT_NEAR(c, 500, 6 * 19.4);
}

TEST(SampledError, AllRowsGiveTheExactRatioAndNoStandardError) {
  const std::vector<double> e = {1, 4, 0, 2}, r = {10, 10, 5, 25};
  const auto s = sampled_relative_error(e, r, 4);
  EXPECT_DOUBLE_EQ(s.value, std::sqrt(7.0 / 50.0));
  EXPECT_EQ(s.standard_error, 0.0);
  EXPECT_TRUE(s.exact());
}

TEST(SampledError, StandardErrorMatchesTheSpreadOfTheEstimate) {
  // A population of N rows; many samples of s rows: the spread of the estimates matches the average
  // standard error to within the Monte Carlo error (2000 repetitions: relative sd of an sd about 1.6%,
  // and the delta method's own error at s = 40, so the tolerance is 20%).
  const std::int64_t n = 500, s = 40;
  std::vector<double> e(n), r(n);
  for (std::int64_t i = 0; i < n; ++i) {
    r[size_t(i)] = 1.0 + std::fmod(0.37 * double(i), 1.0);
    e[size_t(i)] = 0.05 * r[size_t(i)] * (1.0 + std::fmod(0.61 * double(i), 1.0));
  }
  const double truth = std::sqrt(std::accumulate(e.begin(), e.end(), 0.0) / std::accumulate(r.begin(), r.end(), 0.0));
  double sum = 0, sum2 = 0, se_sum = 0;
  const int reps = 2000;
  for (int rep = 0; rep < reps; ++rep) {
    std::vector<double> es, rs;
    for (const auto i : sample_node_indices(n, s, std::uint64_t(rep))) es.push_back(e[size_t(i)]), rs.push_back(r[size_t(i)]);
    const auto x = sampled_relative_error(es, rs, n);
    sum += x.value, sum2 += x.value * x.value, se_sum += x.standard_error;
  }
  const double mean = sum / reps, sd = std::sqrt(sum2 / reps - mean * mean);
  EXPECT_NEAR(mean, truth, 4 * sd / std::sqrt(double(reps)) + 1e-3 * truth);  // the ratio's O(1/s) bias is tiny here
  EXPECT_NEAR(se_sum / reps, sd, 0.2 * sd);
}
