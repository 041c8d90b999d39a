// Streaming GRF assembly without MPI: synthetic walks fed to the assembler in shuffled orders (visits
// split into pieces, completion records before, between or after them) against a dense computation of
// M_t and Phi written here, and the rule that a row is built exactly when its walks are all accounted for.
#include "graphrf/grf/grf_row_assembler.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <map>
#include <random>
#include <variant>

#include "graphrf/core/error.hpp"

using namespace graphrf;

namespace {

constexpr std::int64_t kFirstRow = 100, kRows = 12, kWalkers = 5, kCols = 7;

struct Finished {
  std::uint32_t row;
  std::int32_t hops;
};
using Item = std::variant<std::vector<Deposit>, Finished>;  // a piece of a walker's visits, or its completion

// Random walks: for each row and walker, a hop count in 0..6 and one visit per step 1..hops to a random
// column among kCols (so equal (column, step) keys occur), with a random load.
std::vector<std::vector<Item>> synthetic_walks(std::mt19937_64& rng, std::int64_t row_count = kRows) {
  std::vector<std::vector<Item>> rows(static_cast<size_t>(row_count));
  std::uniform_int_distribution<int> hops_of(0, 6), col_of(0, kCols - 1);
  std::uniform_real_distribution<double> load_of(-2.0, 3.0);
  for (std::uint32_t i = 0; i < row_count; ++i)
    for (std::int64_t k = 0; k < kWalkers; ++k) {
      const int hops = hops_of(rng);
      std::vector<Deposit> visits;
      for (int t = 1; t <= hops; ++t) visits.push_back({kFirstRow + col_of(rng), load_of(rng), i, t});
      // Split into pieces of 1-3 visits (visits on different ranks arrive separately).
      for (size_t b = 0; b < visits.size();) {
        const size_t e = std::min(visits.size(), b + 1 + rng() % 3);
        rows[i].emplace_back(std::vector<Deposit>(visits.begin() + static_cast<long>(b), visits.begin() + static_cast<long>(e)));
        b = e;
      }
      rows[i].emplace_back(Finished{i, hops});
    }
  return rows;
}

// M_t[i, q] and Phi[i, q] directly: loads of equal (row, column, step) summed in ascending order of their bit
// patterns, times 1/n;
// M_0 = I; Phi sums f_t M_t over t ascending.
struct Dense {
  std::map<std::tuple<std::int64_t, std::int64_t, std::int32_t>, double> m;  // (row, col, t)
  std::map<std::pair<std::int64_t, std::int64_t>, double> phi;
};

Dense dense_reference(const std::vector<std::vector<Item>>& rows, const std::vector<double>& f) {
  std::map<std::tuple<std::int64_t, std::int64_t, std::int32_t>, std::vector<double>> loads;
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(rows.size()); ++i) {
    loads[{i, kFirstRow + i, 0}].push_back(static_cast<double>(kWalkers));  // n walkers at home with load 1
    for (const auto& item : rows[static_cast<size_t>(i)])
      if (const auto* v = std::get_if<std::vector<Deposit>>(&item))
        for (const auto& d : *v) loads[{i, d.col, d.step}].push_back(d.load);
  }
  Dense out;
  for (auto& [key, l] : loads) {
    // The documented order: ascending bit patterns (as unsigned integers), which for negative loads is not
    // ascending values.
    std::sort(l.begin(), l.end(), [](double a, double b) { return std::bit_cast<std::uint64_t>(a) < std::bit_cast<std::uint64_t>(b); });
    double sum = 0;
    for (double x : l) sum += x;
    out.m[key] = sum * (1.0 / kWalkers);
  }
  for (const auto& [key, value] : out.m) {  // ordered by (row, col, t)
    const auto t = static_cast<size_t>(std::get<2>(key));
    out.phi[{std::get<0>(key), std::get<1>(key)}] += (t < f.size() ? f[t] : 0.0) * value;
  }
  return out;
}

// Feeds every item in `order` (pairs of row, item index) and checks after each one that exactly the
// leading rows whose items have all been fed are built.
AssembledGrf feed(const std::vector<std::vector<Item>>& rows, const std::vector<std::pair<size_t, size_t>>& order,
                  const std::vector<double>& f, LengthResolvedRows length_resolved = LengthResolvedRows::keep) {
  const auto row_count = static_cast<std::int64_t>(rows.size());
  GrfRowAssembler a(kFirstRow, row_count, kWalkers, f, row_count, 0, {}, length_resolved);
  std::vector<size_t> fed(rows.size(), 0);
  std::int64_t complete = 0;
  for (const auto& [i, k] : order) {
    const Item& item = rows[i][k];
    if (const auto* v = std::get_if<std::vector<Deposit>>(&item)) a.add_visits(static_cast<std::uint32_t>(i), *v);
    else a.walker_finished(std::get<Finished>(item).row, std::get<Finished>(item).hops);
    while (a.make_progress()) {  // as the engine does between its rounds (rows are built 1024 at a time)
    }
    ++fed[i];
    while (complete < row_count && fed[static_cast<size_t>(complete)] == rows[static_cast<size_t>(complete)].size()) ++complete;
    EXPECT_EQ(a.rows_done(), complete);
  }
  return a.finish();
}

std::vector<std::pair<size_t, size_t>> shuffled_order(const std::vector<std::vector<Item>>& rows, std::mt19937_64& rng) {
  std::vector<std::pair<size_t, size_t>> order;
  for (size_t i = 0; i < rows.size(); ++i)
    for (size_t k = 0; k < rows[i].size(); ++k) order.push_back({i, k});
  std::shuffle(order.begin(), order.end(), rng);
  return order;
}

}  // namespace

// 3000 rows arriving in a shuffled order: rows far ahead of the oldest open one make the ring of open rows grow
// (it starts at 1024 slots) while the rows already open move with it.
TEST(GrfRowAssembler, ManyRowsOpenAtOnceGrowTheRingAndStayBitwise) {
  std::mt19937_64 rng(29);
  const auto rows = synthetic_walks(rng, 3000);
  const std::vector<double> f = {1.0, 0.5, -0.25, 0.125, 0.0625, 0.03};
  const Dense want = dense_reference(rows, f);
  const AssembledGrf got = feed(rows, shuffled_order(rows, rng), f, LengthResolvedRows::drop);
  std::map<std::pair<std::int64_t, std::int64_t>, double> phi;
  for (std::int64_t i = 0; i + 1 < static_cast<std::int64_t>(got.phi.indptr.size()); ++i)
    for (auto k = got.phi.indptr[static_cast<size_t>(i)]; k < got.phi.indptr[static_cast<size_t>(i) + 1]; ++k)
      phi[{i, got.phi.col[static_cast<size_t>(k)]}] = got.phi.value[static_cast<size_t>(k)];
  ASSERT_EQ(phi.size(), want.phi.size());
  for (const auto& [key, value] : want.phi) EXPECT_EQ(phi.at(key), value);  // bitwise
}

// The engine appends through visit_buffer's pointer for as long as a row's walkers run: the pointer must stay
// valid when rows far ahead make the ring grow.
TEST(GrfRowAssembler, VisitBuffersStayPutWhenTheRingGrows) {
  const std::vector<double> f = {1.0, 0.5};
  GrfRowAssembler a(0, 5000, 1, f, 5000, 0, {}, LengthResolvedRows::drop);
  std::vector<RowVisit>* first = a.visit_buffer(0);
  std::vector<RowVisit>* second = a.visit_buffer(1);
  for (std::uint32_t row = 2; row < 5000; ++row) {  // rows 2.. open and complete; 0 and 1 stay open
    a.visit_buffer(row)->push_back(row_visit(7, 1, 2.0));
    a.visits_appended(row, 1);
    a.walker_finished(row, 1);
  }
  first->push_back(row_visit(3, 1, 4.0));
  a.visits_appended(0, 1);
  second->push_back(row_visit(4, 1, 8.0));
  a.visits_appended(1, 1);
  a.walker_finished(1, 1);
  a.walker_finished(0, 1);
  while (a.make_progress()) {
  }
  const AssembledGrf got = a.finish();
  ASSERT_EQ(got.phi.indptr.size(), 5001u);
  // Row 0: M_0 at column 0 and the visit at column 3; row 1: M_0 at 1 and the visit at 4.
  EXPECT_EQ(got.phi.col[0], 0);
  EXPECT_EQ(got.phi.col[1], 3);
  EXPECT_EQ(got.phi.value[1], 0.5 * 4.0);
  EXPECT_EQ(got.phi.col[3], 4);
  EXPECT_EQ(got.phi.value[3], 0.5 * 8.0);
}

TEST(GrfRowAssembler, ShuffledArrivalsGiveTheDenseRowsBitwise) {
  std::mt19937_64 rng(11);
  const auto rows = synthetic_walks(rng);
  const std::vector<double> f = {1.0, 0.5, -0.25, 0.125};  // shorter than the walks: later terms count as zero
  const Dense want = dense_reference(rows, f);
  for (int trial = 0; trial < 3; ++trial) {
    const AssembledGrf got = feed(rows, shuffled_order(rows, rng), f);
    const auto& m = got.by_length;
    ASSERT_EQ(m.n_local(), kRows);
    ASSERT_EQ(m.col.size(), want.m.size());
    size_t k = 0;
    for (std::int64_t i = 0; i < kRows; ++i)
      for (auto e = m.indptr[size_t(i)]; e < m.indptr[size_t(i) + 1]; ++e, ++k) {
        const auto it = want.m.find({i, m.col[size_t(e)], m.length[size_t(e)]});
        ASSERT_NE(it, want.m.end());
        EXPECT_EQ(m.value[size_t(e)], it->second);  // bitwise: a fixed summation order
        if (e > m.indptr[size_t(i)])  // sorted by (column, length) within the row
          EXPECT_LT(std::make_pair(m.col[size_t(e) - 1], m.length[size_t(e) - 1]), std::make_pair(m.col[size_t(e)], m.length[size_t(e)]));
      }
    const auto& phi = got.phi;
    ASSERT_EQ(phi.col.size(), want.phi.size());
    for (std::int64_t i = 0; i < kRows; ++i)
      for (auto e = phi.indptr[size_t(i)]; e < phi.indptr[size_t(i) + 1]; ++e)
        EXPECT_EQ(phi.value[size_t(e)], (want.phi.at({i, phi.col[size_t(e)]})));
  }
}

TEST(GrfRowAssembler, PhiWithoutLengthResolvedRowsIsBitwiseTheSame) {
  std::mt19937_64 rng(12);
  const auto rows = synthetic_walks(rng);
  const std::vector<double> f = {0.75, -0.5, 0.3, 0.2, 0.1};
  const Dense want = dense_reference(rows, f);
  for (int trial = 0; trial < 3; ++trial) {
    const AssembledGrf got = feed(rows, shuffled_order(rows, rng), f, LengthResolvedRows::drop);
    EXPECT_TRUE(got.by_length.col.empty());
    const auto& phi = got.phi;
    ASSERT_EQ(phi.n_local(), kRows);
    ASSERT_EQ(phi.col.size(), want.phi.size());
    for (std::int64_t i = 0; i < kRows; ++i)
      for (auto e = phi.indptr[size_t(i)]; e < phi.indptr[size_t(i) + 1]; ++e) {
        EXPECT_EQ(phi.value[size_t(e)], (want.phi.at({i, phi.col[size_t(e)]})));  // bitwise
        if (e > phi.indptr[size_t(i)]) EXPECT_LT(phi.col[size_t(e) - 1], phi.col[size_t(e)]);
      }
  }
}

TEST(GrfRowAssembler, OpenRowWindowFollowsTheOldestUnbuiltRow) {
  GrfRowAssembler a(0, 10, 1, {1.0}, 3, 0);
  EXPECT_TRUE(a.can_start_row(2));
  EXPECT_FALSE(a.can_start_row(3));
  a.walker_finished(1, 0);  // row 1 complete, row 0 not: nothing built, the window stays
  EXPECT_EQ(a.rows_done(), 0);
  EXPECT_FALSE(a.can_start_row(3));
  const Deposit visit{5, 0.5, 0, 1};
  a.add_visits(0, std::span<const Deposit>(&visit, 1));
  a.walker_finished(0, 1);  // rows 0 and 1 built
  EXPECT_EQ(a.rows_done(), 2);
  EXPECT_TRUE(a.can_start_row(4));
  EXPECT_FALSE(a.can_start_row(5));
  EXPECT_EQ(a.peak_pending_visits(), 1);
}

TEST(GrfRowAssembler, IncompleteRowAfterTheWalksIsAnError) {
  GrfRowAssembler a(0, 2, 2, {1.0}, 2, 0);
  a.walker_finished(0, 0);
  a.walker_finished(0, 0);
  a.walker_finished(1, 3);  // row 1: both walkers ended, but the 3 visits of one never arrive
  a.walker_finished(1, 0);
  EXPECT_EQ(a.rows_done(), 1);
  try {
    a.finish();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("row 1 incomplete"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("0 of 3 visits"), std::string::npos) << e.what();
  }
}

// start_every: rows without walkers are built as soon as the rows before them are, holding M_0 = I only
// (Phi[i, i] = f_0); leading ones are built at once, so the window starts at the first row with walkers.
TEST(GrfRowAssembler, RowsWithoutWalkersAreIdentityRowsAndDoNotHoldTheWindow) {
  const std::vector<bool> starts = {false, false, true, false, true, false};
  GrfRowAssembler a(10, 6, 2, {0.5, 1.0}, 2, 0, starts);
  EXPECT_EQ(a.rows_done(), 2);
  EXPECT_TRUE(a.can_start_row(3));
  EXPECT_FALSE(a.can_start_row(4));
  const Deposit visit{13, 2.0, 2, 1};
  a.add_visits(2, std::span<const Deposit>(&visit, 1));
  a.walker_finished(2, 1);
  EXPECT_EQ(a.rows_done(), 2);  // one of row 2's two walkers has not ended
  a.walker_finished(2, 0);
  EXPECT_EQ(a.rows_done(), 4);  // rows 2 and 3
  a.walker_finished(4, 0);
  a.walker_finished(4, 0);
  EXPECT_EQ(a.rows_done(), 6);  // rows 4 and the trailing row 5
  const AssembledGrf got = a.finish();
  const std::vector<std::int64_t> indptr = {0, 1, 2, 4, 5, 6, 7};
  EXPECT_EQ(got.phi.indptr, indptr);
  // Row 2: M_0[2, 12] = 1 and M_1[2, 13] = 2.0 / 2 walkers; every other row: M_0 only.
  const std::vector<std::int64_t> col = {10, 11, 12, 13, 13, 14, 15};
  const std::vector<double> value = {0.5, 0.5, 0.5, 1.0, 0.5, 0.5, 0.5};
  EXPECT_EQ(got.phi.col, col);
  EXPECT_EQ(got.phi.value, value);
}
