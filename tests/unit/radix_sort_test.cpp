// radix_sort_by_key against std::stable_sort on the keys: same order, ties in input order, for key bounds that
// need zero, one, two and three 11-bit passes; sorted_unique against sort + unique + a binary search per entry,
// on both of its paths (marks where the bound is at most twice the entries, the radix sort above it).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "graphrf/core/radix_sort.hpp"
#include "graphrf/core/sorted_unique.hpp"

namespace graphrf {
namespace {

TEST(RadixSort, MatchesAStableComparisonSort) {
  std::mt19937_64 rng(7);
  for (const std::uint64_t bound : {std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{2048}, std::uint64_t{2049},
                                    std::uint64_t{1} << 22, (std::uint64_t{1} << 33) + 5}) {
    for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{1000}, std::size_t{50000}}) {
      std::vector<std::pair<std::uint64_t, std::uint64_t>> items(n);
      // Few distinct keys for the small bounds: many ties, whose input order (the value) must survive.
      for (std::size_t k = 0; k < n; ++k) items[k] = {rng() % bound, k};
      auto expected = items;
      std::stable_sort(expected.begin(), expected.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      radix_sort_by_key(items, bound);
      EXPECT_EQ(items, expected) << "bound " << bound << ", n " << n;
    }
  }
}

TEST(SortedUnique, DistinctValuesAndEachEntrysPosition) {
  std::mt19937_64 rng(8);
  for (const std::uint64_t bound : {std::uint64_t{1}, std::uint64_t{100}, std::uint64_t{10000}, std::uint64_t{10001},
                                    std::uint64_t{1} << 24}) {
    for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{5000}}) {
      std::vector<std::int64_t> entries(n);
      for (auto& e : entries) e = static_cast<std::int64_t>(rng() % bound);
      std::vector<std::int64_t> distinct = entries;
      std::sort(distinct.begin(), distinct.end());
      distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
      const SortedUnique got = sorted_unique(entries, bound);
      EXPECT_EQ(got.values, distinct);
      ASSERT_EQ(got.slot.size(), n);
      for (std::size_t k = 0; k < n; ++k)
        EXPECT_EQ(got.slot[k], std::lower_bound(distinct.begin(), distinct.end(), entries[k]) - distinct.begin());
    }
  }
}

TEST(SortedUnique, OutsideARangeKeepsTheOrderOfTheEntriesLeft) {
  const std::vector<std::int64_t> entries = {7, 2, 9, 3, 12, 7, 0, 5, 12};
  const SortedUnique got = sorted_unique_outside(entries, 3, 4, 16);  // drops 3..6
  EXPECT_EQ(got.values, (std::vector<std::int64_t>{0, 2, 7, 9, 12}));
  EXPECT_EQ(got.slot, (std::vector<std::int64_t>{2, 1, 3, 4, 2, 0, 4}));  // 7 2 9 12 7 0 12
}

}  // namespace
}  // namespace graphrf
