// Halting and antithetic termination draws (Reid, Choromanski, Weller 2023, "Quasi-Monte Carlo graph random
// features").
#include "graphrf/walks/walk_step.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

using namespace graphrf;

namespace {

// Length of a walk that never meets a dead end or max_length: the first step at which it halts.
std::int64_t length_of(const WalkOptions& o, std::int64_t start, std::int64_t walker) {
  for (std::int64_t t = 0;; ++t)
    if (draw_hop(o, start, walker, t).halt) return t;
}

// Chi-square statistic of observed lengths against Geometric(p) on {0, 1, ...}, bins merged into a tail
// once the expected count drops below 20.
double geometric_chi_square(const std::vector<std::int64_t>& lengths, double p, int* dof) {
  const double n = static_cast<double>(lengths.size());
  std::vector<double> observed;
  for (auto l : lengths) {
    if (static_cast<size_t>(l) >= observed.size()) observed.resize(static_cast<size_t>(l) + 1, 0);
    observed[static_cast<size_t>(l)] += 1;
  }
  double chi = 0, tail_obs = n, tail_prob = 1.0;
  int bins = 0;
  for (size_t k = 0;; ++k) {
    const double prob = p * std::pow(1 - p, static_cast<double>(k));
    if (n * prob < 20 || n * (tail_prob - prob) < 20) break;
    const double obs = k < observed.size() ? observed[k] : 0.0;
    chi += (obs - n * prob) * (obs - n * prob) / (n * prob);
    tail_obs -= obs;
    tail_prob -= prob;
    ++bins;
  }
  chi += (tail_obs - n * tail_prob) * (tail_obs - n * tail_prob) / (n * tail_prob);
  *dof = bins;  // bins + tail - 1
  return chi;
}

// Upper bound of the chi-square critical value at level 1e-6 for dof <= 40 (Wilson-Hilferty with z = 4.9).
double chi_square_critical(int dof) {
  const double k = dof, z = 4.9;
  return k * std::pow(1 - 2 / (9 * k) + z * std::sqrt(2 / (9 * k)), 3);
}

}  // namespace

TEST(WalkStep, IidLengthsAreGeometric) {
  WalkOptions o;
  o.p_halt = 0.3;
  o.walkers = 8;
  std::vector<std::int64_t> lengths;
  for (std::int64_t start = 0; start < 5000; ++start)
    for (std::int64_t k = 0; k < o.walkers; ++k) lengths.push_back(length_of(o, start * 977 + 13, k));
  int dof = 0;
  const double chi = geometric_chi_square(lengths, o.p_halt, &dof);
  EXPECT_LT(chi, chi_square_critical(dof)) << "dof " << dof;  // fails with probability < 1e-6
}

TEST(WalkStep, AntitheticPairsNeverHaltTogetherAndStayGeometric) {
  for (double p : {0.1, 0.25, 0.5}) {
    WalkOptions o;
    o.p_halt = p;
    o.walkers = 6;
    o.coupling = Coupling::antithetic;
    std::vector<std::int64_t> lengths;
    for (std::int64_t start = 0; start < 4000; ++start) {
      for (std::int64_t k = 0; k < o.walkers / 2; ++k) {
        for (std::int64_t t = 0; t < 30; ++t) {
          const bool a = draw_hop(o, start, k, t).halt, b = draw_hop(o, start, k + o.walkers / 2, t).halt;
          ASSERT_FALSE(a && b) << "p " << p << " start " << start << " pair " << k << " step " << t;
          if (p == 0.5) ASSERT_TRUE(a || b);  // exactly one halts at every step
        }
      }
      for (std::int64_t k = 0; k < o.walkers; ++k) lengths.push_back(length_of(o, start, k));
    }
    int dof = 0;
    const double chi = geometric_chi_square(lengths, p, &dof);
    EXPECT_LT(chi, chi_square_critical(dof)) << "p " << p << " dof " << dof;
  }
}

TEST(WalkStep, WeightedPickFollowsCumulativeWeights) {
  const double cumulative[4] = {1.0, 3.0, 3.5, 7.5};  // weights 1, 2, 0.5, 4
  std::vector<int> hits(4, 0);
  const int n = 150000;
  for (int i = 0; i < n; ++i) ++hits[static_cast<size_t>(pick_weighted(cumulative, 4, philox_block(5, RngDomain::walk_step, static_cast<std::uint64_t>(i))[1]))];
  const double w[4] = {1, 2, 0.5, 4};
  for (int k = 0; k < 4; ++k) {
    const double prob = w[k] / 7.5, sd = std::sqrt(n * prob * (1 - prob));
    EXPECT_NEAR(hits[static_cast<size_t>(k)], n * prob, 6 * sd);  // 6 sd: p < 2e-9 per bin
  }
}
