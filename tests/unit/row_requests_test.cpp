// Start rows shared out between hosts by request (row_requests.hpp): the owner hands out the back half of what it
// has left and keeps the front; a thief asks one rank at a time, in turn from the next, keeps asking a rank that
// gave, and stops once every other rank has said no in a row.
#include "graphrf/walks/row_requests.hpp"

#include <gtest/gtest.h>

#include "graphrf/core/error.hpp"

using namespace graphrf;

TEST(RowRequests, TheOwnerGivesTheBackHalfAndKeepsTheFront) {
  RowRequests owner(0, 3, 100);
  const RowRange first = owner.claim_own(10);
  EXPECT_EQ(first.begin, 0);
  EXPECT_EQ(first.end, 10);
  const RowRange given = owner.give(4, 1000);  // 90 left: the back 45
  EXPECT_EQ(given.begin, 55);
  EXPECT_EQ(given.end, 100);
  EXPECT_EQ(owner.own_end(), 55);
  EXPECT_EQ(owner.give(4, 20).size(), 20);  // at most max_rows: 35 .. 55
  EXPECT_EQ(owner.own_end(), 35);
  const RowRange rest = owner.claim_own(1000);
  EXPECT_EQ(rest.begin, 10);
  EXPECT_EQ(rest.end, 35);
  EXPECT_TRUE(owner.give(1, 1000).empty());
  EXPECT_TRUE(owner.claim_own(10).empty());
  // Fewer than 2 * min_rows left: nothing is given.
  RowRequests small(1, 2, 7);
  EXPECT_TRUE(small.give(4, 1000).empty());
  EXPECT_EQ(small.give(3, 1000).size(), 3);
}

TEST(RowRequests, AThiefAsksInTurnOneAtATimeAndStopsAfterEveryRankSaidNo) {
  RowRequests thief(2, 4, 0);
  ASSERT_EQ(thief.ask(), 3);
  EXPECT_FALSE(thief.ask().has_value());  // one request at a time
  thief.answered(3, {});
  ASSERT_EQ(thief.ask(), 0);  // after rank 3, rank 0 (not itself)
  thief.answered(0, {40, 60});
  EXPECT_FALSE(thief.ask().has_value());  // rows granted and not yet taken
  const auto taken = thief.take_granted();
  ASSERT_TRUE(taken.has_value());
  EXPECT_EQ(taken->peer, 0);
  EXPECT_EQ(taken->rows.begin, 40);
  EXPECT_EQ(taken->rows.end, 60);
  EXPECT_FALSE(thief.take_granted().has_value());
  ASSERT_EQ(thief.ask(), 0);  // the rank that gave is asked again
  thief.answered(0, {});
  ASSERT_EQ(thief.ask(), 1);
  thief.answered(1, {});
  EXPECT_FALSE(thief.done_asking());
  ASSERT_EQ(thief.ask(), 3);  // skips itself
  thief.answered(3, {});
  EXPECT_TRUE(thief.done_asking());  // ranks 0, 1 and 3 said no in a row
  EXPECT_FALSE(thief.ask().has_value());
  EXPECT_THROW(thief.answered(1, {}), Error);  // not asked
}

TEST(RowRequests, RefusesMoreRowsThanAClaimWordHolds) {
  EXPECT_THROW(RowRequests(0, 2, std::int64_t{1} << 32), Error);
}
