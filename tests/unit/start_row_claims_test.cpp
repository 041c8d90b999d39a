// Claims on one range of start rows (start_row_claims.hpp): the owner takes batches from the front, peers take the
// back half of what is left (at most as many as they may take), and however their claims interleave every row is claimed exactly once.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "graphrf/walks/start_row_claims.hpp"

using namespace graphrf;

TEST(StartRowClaims, FrontBatchesAndBackHalvesSplitTheRangeInOrder) {
  std::uint64_t word = claim_word(0, 100);
  const auto at = [&] { return std::atomic_ref<std::uint64_t>(word); };
  RowRange r = claim_front(at(), 16);
  EXPECT_EQ(r.begin, 0);
  EXPECT_EQ(r.end, 16);
  constexpr std::int64_t kAny = std::int64_t{1} << 40;
  r = claim_back(at(), 10, kAny);  // 84 left: the back 42
  EXPECT_EQ(r.begin, 58);
  EXPECT_EQ(r.end, 100);
  r = claim_back(at(), 10, 5);  // 42 left: the back 21, but at most 5
  EXPECT_EQ(r.begin, 53);
  EXPECT_EQ(r.end, 58);
  EXPECT_TRUE(claim_back(at(), 10, 0).empty());  // a peer with no room takes nothing
  r = claim_back(at(), 10, kAny);  // 37 left: the back 18
  EXPECT_EQ(r.begin, 35);
  EXPECT_EQ(r.end, 53);
  r = claim_back(at(), 10, kAny);  // 19 left, fewer than 2 x 10: nothing
  EXPECT_TRUE(r.empty());
  r = claim_front(at(), 100);  // the owner takes what is left, no more
  EXPECT_EQ(r.begin, 16);
  EXPECT_EQ(r.end, 35);
  EXPECT_TRUE(claim_front(at(), 1).empty());
  EXPECT_TRUE(claim_back(at(), 1, kAny).empty());
  EXPECT_EQ(unclaimed(word).begin, 35);
  EXPECT_EQ(unclaimed(word).end, 35);
}

TEST(StartRowClaims, ConcurrentClaimsTakeEveryRowExactlyOnce) {
  // One owner and three peers race on a range of 2^20 rows (claims of 1..7 rows from the front, halves from the
  // back); each row's claim count must be exactly 1, and the owner's rows are a prefix ending where the word ends.
  constexpr std::int64_t kRows = 1 << 20;
  std::uint64_t word = claim_word(0, kRows);
  std::vector<std::atomic<int>> claimed(kRows);
  const auto mark = [&](RowRange r) {
    for (std::int64_t i = r.begin; i < r.end; ++i) claimed[static_cast<size_t>(i)].fetch_add(1);
  };
  std::int64_t owner_end = 0;
  std::vector<std::thread> threads;
  threads.emplace_back([&] {
    for (std::int64_t k = 0;; ++k) {
      const RowRange r = claim_front(std::atomic_ref<std::uint64_t>(word), 1 + k % 7);
      if (r.empty()) break;
      EXPECT_EQ(r.begin, owner_end);  // ascending and contiguous
      owner_end = r.end;
      mark(r);
    }
  });
  for (int t = 0; t < 3; ++t)
    threads.emplace_back([&] {
      for (;;) {
        const RowRange r = claim_back(std::atomic_ref<std::uint64_t>(word), 2, kRows);
        if (r.empty() && unclaimed(std::atomic_ref<std::uint64_t>(word).load()).size() < 4) break;
        mark(r);
      }
    });
  for (auto& t : threads) t.join();
  for (std::int64_t i = 0; i < kRows; ++i) ASSERT_EQ(claimed[static_cast<size_t>(i)].load(), 1) << "row " << i;
  EXPECT_EQ(unclaimed(word).end, owner_end);
}
