// The exact assignment solver against brute force over all permutations (m <= 8) and against instances with
// a planted unique optimum (m up to 64).
#include "graphrf/walks/linear_assignment.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

using namespace graphrf;

namespace {
double brute_force_minimum(const std::vector<double>& cost, int m) {
  std::vector<int> p(static_cast<size_t>(m));
  std::iota(p.begin(), p.end(), 0);
  double best = 1e300;
  do best = std::min(best, assignment_cost(cost, p));
  while (std::next_permutation(p.begin(), p.end()));
  return best;
}

bool is_permutation_of_m(const std::vector<int>& sigma, int m) {
  std::vector<int> sorted = sigma;
  std::sort(sorted.begin(), sorted.end());
  for (int k = 0; k < m; ++k)
    if (sorted[static_cast<size_t>(k)] != k) return false;
  return static_cast<int>(sigma.size()) == m;
}
}  // namespace

TEST(LinearAssignment, MatchesBruteForceUpToEight) {
  std::mt19937_64 rng(17);
  for (int m = 1; m <= 8; ++m)
    for (int trial = 0; trial < (m <= 6 ? 40 : 8); ++trial) {
      std::vector<double> cost(static_cast<size_t>(m * m));
      // Small integers make ties common; signed reals test negative costs.
      std::uniform_int_distribution<int> small(0, 4);
      std::uniform_real_distribution<double> real(-10, 10);
      for (auto& c : cost) c = trial % 2 == 0 ? small(rng) : real(rng);
      const auto sigma = solve_linear_assignment(cost, m);
      ASSERT_TRUE(is_permutation_of_m(sigma, m)) << "m " << m;
      EXPECT_NEAR(assignment_cost(cost, sigma), brute_force_minimum(cost, m), 1e-9) << "m " << m << " trial " << trial;
    }
}

TEST(LinearAssignment, FindsAPlantedUniqueOptimum) {
  // cost(i, j) = a_i + b_j + slack(i, j) with slack 0 on a hidden permutation pi and >= 0.1 elsewhere: every
  // permutation costs sum a + sum b + its slack, so pi is the unique optimum.
  std::mt19937_64 rng(5);
  for (int m : {2, 5, 16, 64}) {
    std::vector<int> pi(static_cast<size_t>(m));
    std::iota(pi.begin(), pi.end(), 0);
    std::shuffle(pi.begin(), pi.end(), rng);
    std::uniform_real_distribution<double> potential(-50, 50), slack(0.1, 5);
    std::vector<double> a(static_cast<size_t>(m)), b(static_cast<size_t>(m)), cost(static_cast<size_t>(m * m));
    for (auto& x : a) x = potential(rng);
    for (auto& x : b) x = potential(rng);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < m; ++j)
        cost[static_cast<size_t>(i * m + j)] =
            a[static_cast<size_t>(i)] + b[static_cast<size_t>(j)] + (pi[static_cast<size_t>(i)] == j ? 0.0 : slack(rng));
    EXPECT_EQ(solve_linear_assignment(cost, m), pi) << "m " << m;
  }
}
