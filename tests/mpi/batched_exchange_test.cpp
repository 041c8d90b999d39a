// The batched exchange under a workload shaped like the walk engine's: items hop between random ranks in
// small batches until their hop budget runs out, each then sends a receipt home on a second channel, the end
// is found by counting (CountedTermination) and the receipts still in flight are drained. Whatever the rank
// count and the interleaving, every item must finish exactly once and every receipt must arrive exactly once.
#include "graphrf/mpi/batched_exchange.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <deque>
#include <random>
#include <vector>

#include "graphrf/core/timer.hpp"
#include "graphrf/mpi/counted_termination.hpp"
#include "mpi_test_support.hpp"

using namespace graphrf;
using graphrf::testing::world;

namespace {

struct Item {
  std::int64_t origin, serial, hops_left, hops_made;
};
struct Receipt {
  std::int64_t serial, hops_made;
};

constexpr int kItemTag = 11, kReceiptTag = 12;

// Runs the workload; returns, per item this rank created, how many receipts came back (and checks each
// receipt's hop count). `batch`: records per message on both channels.
std::vector<int> run_items(std::int64_t batch, std::uint64_t seed, std::int64_t* messages) {
  const Communicator& comm = world();
  const int p = comm.size(), me = comm.rank();
  std::mt19937_64 rng(seed * 1000 + static_cast<std::uint64_t>(me));
  const std::int64_t mine = 300 + 23 * me + static_cast<std::int64_t>(rng() % 200);
  std::vector<std::int64_t> budget(static_cast<size_t>(mine));
  std::deque<Item> queue;
  for (std::int64_t k = 0; k < mine; ++k) {
    budget[static_cast<size_t>(k)] = static_cast<std::int64_t>(rng() % 7);  // 0 .. 6 hops
    queue.push_back({me, k, budget[static_cast<size_t>(k)], 0});
  }
  BatchedExchange exchange(comm);
  BatchChannel<Item> items(exchange, kItemTag, batch);
  BatchChannel<Receipt> receipts(exchange, kReceiptTag, batch);
  CountedTermination termination(exchange.comm(), comm.sum(mine), 2);
  std::vector<int> received(static_cast<size_t>(mine), 0);
  const auto count_receipt = [&](const Receipt& r) {
    ++received[static_cast<size_t>(r.serial)];
    EXPECT_EQ(r.hops_made, budget[static_cast<size_t>(r.serial)]) << "item " << r.serial;
  };
  std::vector<Item> inbox;
  std::vector<Receipt> receipt_inbox;
  const auto receive = [&](const Arrival& a) {
    if (items.carries(a)) {
      inbox.resize(a.count<Item>());
      items.receive(a, inbox.data());
      queue.insert(queue.end(), inbox.begin(), inbox.end());
    } else {
      ASSERT_TRUE(receipts.carries(a));
      receipt_inbox.resize(a.count<Receipt>());
      receipts.receive(a, receipt_inbox.data());
      for (const Receipt& r : receipt_inbox) count_receipt(r);
    }
  };
  std::int64_t finished = 0, hops = 0;
  Timer timer;
  while (!termination.finished()) {
    while (const auto a = exchange.probe()) receive(*a);
    bool worked = false;
    for (int k = 0; k < 5 && !queue.empty(); ++k) {  // a little work per round, so messages interleave
      Item item = queue.front();
      queue.pop_front();
      worked = true;
      if (item.hops_left == 0) {
        ++finished;
        const Receipt r{item.serial, item.hops_made};
        if (item.origin == me) count_receipt(r);
        else receipts.append(static_cast<int>(item.origin), r);
        continue;
      }
      --item.hops_left;
      ++item.hops_made;
      ++hops;
      const int dest = static_cast<int>(rng() % static_cast<std::uint64_t>(p));
      if (dest == me) queue.push_back(item);
      else items.append(dest, item);
    }
    if (!worked) {
      items.flush();
      receipts.flush();
    }
    exchange.reclaim(false);
    termination.advance(!worked, timer.seconds(), std::array<std::int64_t, 2>{finished, hops});
  }
  EXPECT_EQ(items.buffered(), 0);
  exchange.drain(receipts, receive);
  EXPECT_EQ(termination.sums()[0], comm.sum(mine));
  EXPECT_EQ(comm.sum(finished), comm.sum(mine));
  *messages = exchange.messages_sent();
  return received;
}

}  // namespace

TEST(BatchedExchange, EveryItemFinishesOnceAndEveryReceiptArrivesOnce) {
  for (const std::int64_t batch : {1, 3, 64}) {  // one record per message, a few, everything in one batch
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      std::int64_t messages = 0;
      const std::vector<int> received = run_items(batch, seed, &messages);
      int wrong = 0;
      for (const int n : received) wrong += n != 1;
      EXPECT_EQ(wrong, 0) << "batch " << batch << ", seed " << seed << ": items without exactly one receipt";
      // Items and receipts cross ranks whenever there is more than one.
      if (world().size() > 1) EXPECT_GT(world().sum(messages), 0);
      else EXPECT_EQ(messages, 0);
    }
  }
}

TEST(BatchedExchange, AFullBatchLeavesAtOnceAndARunIsNeverSplit) {
  const Communicator& comm = world();
  if (comm.size() < 2) GTEST_SKIP() << "needs another rank";
  BatchedExchange exchange(comm);
  BatchChannel<std::int64_t> channel(exchange, 5, 4);
  const int next = (comm.rank() + 1) % comm.size();
  channel.append(next, std::int64_t{1});
  channel.append(next, std::int64_t{2});
  EXPECT_EQ(channel.buffered(), 2);
  EXPECT_EQ(exchange.messages_sent(), 0);
  const std::array<std::int64_t, 3> run{3, 4, 5};
  channel.append(next, std::int64_t{0}, run);  // 2 + 4 records: the batch passes 4 and leaves whole
  EXPECT_EQ(channel.buffered(), 0);
  EXPECT_EQ(exchange.messages_sent(), 1);
  std::vector<std::int64_t> got;
  exchange.drain(channel, [&](const Arrival& a) {
    got.resize(a.count<std::int64_t>());
    channel.receive(a, got.data());
  });
  EXPECT_EQ(got, (std::vector<std::int64_t>{1, 2, 0, 3, 4, 5}));
  EXPECT_EQ(channel.messages_received(), 1);
}
