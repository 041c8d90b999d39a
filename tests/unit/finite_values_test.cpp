// The first value of an output that is not finite (what the HDF5 writer refuses), and the walk estimate's
// entries per row without walking.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "graphrf/grf/grf_memory.hpp"
#include "graphrf/io/finite_values.hpp"

using namespace graphrf;

TEST(FiniteValues, FindsTheFirstInfinityOrNaN) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  const std::vector<double> fine{1, -2, 1e308, 4.9e-324};
  EXPECT_EQ(first_non_finite(H5Element::f64, fine.data(), fine.size(), false), -1);
  const std::vector<double> bad{1, nan, -inf};
  EXPECT_EQ(first_non_finite(H5Element::f64, bad.data(), bad.size(), false), 1);
  EXPECT_EQ(first_non_finite(H5Element::f64, bad.data(), bad.size(), true), 2);  // NaN as a missing value
  const std::vector<float> floats{0.5f, std::numeric_limits<float>::infinity()};
  EXPECT_EQ(first_non_finite(H5Element::f32, floats.data(), floats.size(), false), 1);
  const std::vector<std::int64_t> ints{-1, 0};
  EXPECT_EQ(first_non_finite(H5Element::i64, ints.data(), ints.size(), false), -1);
}

TEST(GrfMemory, EntriesPerRowAreCappedByTheNodes) {
  WalkOptions walk;
  walk.walkers = 2048;
  walk.p_halt = 0.05;
  walk.max_length = 16;
  const double visits = 1 + 2048 * expected_hops_per_walk(walk) * 1.02;
  // Many walkers on 10^4 nodes: Phi has at most one entry per node, M_t one per node and step.
  const RowEntries big = row_entries_bound(walk, 10000);
  EXPECT_EQ(big.phi, 10000);
  EXPECT_DOUBLE_EQ(big.by_length, visits);
  const RowEntries small = row_entries_bound(walk, 100);
  EXPECT_EQ(small.phi, 100);
  EXPECT_EQ(small.by_length, 1700);
  // Few walkers: one per visit.
  walk.walkers = 2;
  EXPECT_DOUBLE_EQ(row_entries_bound(walk, 22500).phi, 1 + 2 * expected_hops_per_walk(walk) * 1.02);
}
