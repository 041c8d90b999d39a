// The row pass (row_sums.hpp), portable and AVX-512, against sums written here: for rows of 1 to 300 sorted
// visits with signed loads, many equal (column, step) runs, and an f shorter than the walks, every Phi entry
// bit for bit; and with runs of one visit (one walker per node), the same without run sums.
#include "graphrf/grf/row_sums.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <map>
#include <random>
#include <utility>
#include <vector>

namespace graphrf {
namespace {

std::vector<RowVisit> sorted_row(std::mt19937_64& rng, std::size_t n, bool distinct_keys) {
  std::vector<RowVisit> v;
  std::uniform_real_distribution<double> load(-2.0, 3.0);
  for (std::size_t k = 0; k < n; ++k) {
    const auto col = static_cast<std::int64_t>(rng() % (n / 3 + 2)) + 1000;
    const auto step = distinct_keys ? static_cast<std::int32_t>(k) : static_cast<std::int32_t>(rng() % 6);
    v.push_back(row_visit(col, step, load(rng)));
  }
  std::sort(v.begin(), v.end());
  v.push_back(~RowVisit{0});  // the sentinel
  return v;
}

// Phi's entries of a sorted row: each (column, step) run's loads from 0.0 in the row's order, times 1/n, times
// f_t (0 past f), added up per column from 0.0 over ascending steps.
std::vector<std::pair<std::int64_t, double>> reference(const std::vector<RowVisit>& v, const std::vector<double>& f,
                                                       double inv_n) {
  std::map<std::pair<std::int64_t, std::int32_t>, double> runs;
  for (std::size_t k = 0; k + 1 < v.size(); ++k) {
    auto [it, fresh] = runs.try_emplace({key_col(visit_key(v[k])), key_step(visit_key(v[k]))}, 0.0);
    it->second += std::bit_cast<double>(static_cast<std::uint64_t>(v[k]));
  }
  std::map<std::int64_t, double> columns;
  for (const auto& [key, sum] : runs) {
    const auto t = static_cast<std::size_t>(key.second);
    auto [it, fresh] = columns.try_emplace(key.first, 0.0);
    it->second += (t < f.size() ? f[t] : 0.0) * (sum * inv_n);
  }
  return {columns.begin(), columns.end()};
}

std::vector<std::pair<std::int64_t, double>> entries(const std::vector<RowVisit>& v, std::size_t count) {
  std::vector<std::pair<std::int64_t, double>> out(count);
  for (std::size_t c = 0; c < count; ++c) {
    std::memcpy(&out[c].first, reinterpret_cast<const unsigned char*>(v.data() + c), 8);
    std::memcpy(&out[c].second, reinterpret_cast<const unsigned char*>(v.data() + c) + 8, 8);
  }
  return out;
}

TEST(RowSums, BothPassesGiveTheReferenceSumsBitForBit) {
  std::mt19937_64 rng(23);
  const std::vector<double> f = {1.0, -0.7, 0.31, 0.2};  // steps 4 and 5 count as zero
  for (const bool runs_of_one : {false, true}) {
    for (std::size_t n = 1; n <= 300; ++n) {
      const auto row = sorted_row(rng, n, runs_of_one);
      const double inv_n = runs_of_one ? 1.0 / 3.0 : 1.0 / 7.0;
      const auto want = reference(row, f, inv_n);
      const RunsOfOne runs = runs_of_one ? RunsOfOne::yes : RunsOfOne::no;
      auto portable = row;
      const std::size_t portable_count = sum_row_runs_portable(portable.data(), n, f, inv_n, runs);
      auto chosen = row;
      const std::size_t chosen_count = sum_row_runs(chosen.data(), n, f, inv_n, runs);
      const auto got_portable = entries(portable, portable_count), got = entries(chosen, chosen_count);
      ASSERT_EQ(got_portable.size(), want.size()) << "n " << n;
      ASSERT_EQ(got.size(), want.size()) << "n " << n;
      for (std::size_t c = 0; c < want.size(); ++c) {
        ASSERT_EQ(got_portable[c].first, want[c].first) << "n " << n << ", entry " << c;
        ASSERT_EQ(std::bit_cast<std::uint64_t>(got_portable[c].second), std::bit_cast<std::uint64_t>(want[c].second))
            << "n " << n << ", entry " << c;
        ASSERT_EQ(got[c].first, want[c].first) << "n " << n << ", entry " << c;
        ASSERT_EQ(std::bit_cast<std::uint64_t>(got[c].second), std::bit_cast<std::uint64_t>(want[c].second))
            << "n " << n << ", entry " << c;
      }
    }
  }
  if (!row_sums_use_avx512()) GTEST_SKIP() << "no AVX-512 here: only the portable pass was checked";
}

}  // namespace
}  // namespace graphrf
