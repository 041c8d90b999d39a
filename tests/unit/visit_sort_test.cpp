// sort_row_visits against std::sort of the same 128-bit visits, for every row length up to 300 (insertion,
// every network size with partial last registers, and merged networks or quicksort beyond), with visits like a GRF row's (keys
// below 2^63, many equal high halves with distinct or equal low halves). On a processor without AVX-512 the
// network path is not taken and the test checks the portable path twice. With TiedPairs::either_order, the same
// but for runs of exactly two equal high halves, which may be swapped.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "graphrf/grf/visit_sort.hpp"

namespace graphrf {
namespace {

// A row of n visits: columns from a small range (so that equal columns and steps are common), steps 0..3,
// loads from a few values (equal visits happen) or random bits. With `huge_columns` half the columns are 2^42
// and more (past what the networks' words hold: such rows take the portable path); without, the largest
// columns the networks take (just below 2^35) are among them.
std::vector<RowVisit> random_row(std::mt19937_64& rng, std::size_t n, bool few_loads, bool huge_columns = false) {
  std::vector<RowVisit> v(n);
  const std::uint64_t high = huge_columns ? std::uint64_t{1} << 42 : (std::uint64_t{1} << 35) - n;
  for (auto& x : v) {
    const std::uint64_t col = rng() % (n / 2 + 1) + high * (rng() % 2);
    const std::uint64_t key = (col << 20) | (rng() % 4);
    const std::uint64_t load = few_loads ? rng() % 3 : rng();
    x = (static_cast<RowVisit>(key) << 64) | load;
  }
  return v;
}

TEST(VisitSort, EqualsAComparisonSortOfTheVisitsForEveryLength) {
  std::mt19937_64 rng(11);
  for (std::size_t n = 0; n <= 300; ++n) {
    for (const bool few_loads : {false, true}) {
      for (int trial = 0; trial < 4; ++trial) {
        const auto row = random_row(rng, n, few_loads, trial == 3);
        auto want = row;
        std::sort(want.begin(), want.end());
        auto got = row;
        sort_row_visits(got.data(), got.size());
        ASSERT_TRUE(got == want) << "n " << n << (few_loads ? " (few loads)" : "") << (trial == 3 ? " (huge columns)" : "");
        auto portable = row;
        sort_row_visits_portable(portable.data(), portable.size());
        ASSERT_TRUE(portable == want) << "n " << n;
      }
    }
  }
  if (!visit_sort_uses_avx512()) GTEST_SKIP() << "no AVX-512 here: only the portable path was checked";
}

// Runs of equal keys longer than the 64 neighbouring pairs the tie search looks at in one go, starting
// anywhere: two or three keys in all.
TEST(VisitSort, OrdersRunsOfEqualKeysLongerThanItsSearchWindow) {
  std::mt19937_64 rng(3);
  for (std::size_t n = 60; n <= 300; n += 7) {
    for (const std::uint64_t keys : {2, 3}) {
      std::vector<RowVisit> row(n);
      for (auto& x : row) x = (static_cast<RowVisit>((rng() % keys) << 20) << 64) | rng();
      auto want = row;
      std::sort(want.begin(), want.end());
      sort_row_visits(row.data(), row.size());
      ASSERT_TRUE(row == want) << "n " << n << ", " << keys << " keys";
    }
  }
}

// The networks leave the memory around the row alone: they load it with masks and put visits back one by one.
TEST(VisitSort, TouchesOnlyTheRow) {
  std::mt19937_64 rng(5);
  for (const std::size_t n : {13, 17, 31, 64, 100, 128, 150, 192}) {
    auto buffer = random_row(rng, n + 16, false);
    const auto before = buffer;
    sort_row_visits(buffer.data() + 8, n);
    for (std::size_t k = 0; k < 8; ++k) ASSERT_TRUE(buffer[k] == before[k]) << n;
    for (std::size_t k = 8 + n; k < buffer.size(); ++k) ASSERT_TRUE(buffer[k] == before[k]) << n;
    ASSERT_TRUE(std::is_sorted(buffer.begin() + 8, buffer.begin() + 8 + static_cast<std::ptrdiff_t>(n)));
  }
}

// TiedPairs::either_order: the same visits, ascending high halves, every run of three or more equal high halves
// in order of its low halves; a run of exactly two may come out either way (only its sum is used).
TEST(VisitSort, LeavesOnlyTiedPairsUnorderedWhenAskedTo) {
  std::mt19937_64 rng(17);
  std::size_t unordered_pairs = 0;
  for (std::size_t n = 0; n <= 300; ++n) {
    for (const bool few_loads : {false, true}) {
      const auto row = random_row(rng, n, few_loads, n % 5 == 4);
      auto want = row;
      std::sort(want.begin(), want.end());
      auto got = row;
      sort_row_visits(got.data(), got.size(), TiedPairs::either_order);
      for (std::size_t k = 0; k < n;) {
        std::size_t end = k + 1;
        while (end < n && visit_key(want[end]) == visit_key(want[k])) ++end;
        if (end - k == 2 && got[k] != want[k]) {  // the pair swapped
          ASSERT_TRUE(got[k] == want[k + 1] && got[k + 1] == want[k]) << "n " << n << ", visit " << k;
          ++unordered_pairs;
        } else {
          for (std::size_t j = k; j < end; ++j) ASSERT_TRUE(got[j] == want[j]) << "n " << n << ", visit " << j;
        }
        k = end;
      }
    }
  }
  // The networks do leave pairs alone (else this option would save nothing).
  if (visit_sort_uses_avx512()) EXPECT_GT(unordered_pairs, 0u);
}

}  // namespace
}  // namespace graphrf
