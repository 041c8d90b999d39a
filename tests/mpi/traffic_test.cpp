// The sent-bytes counter of the run summary counts every send path: all-to-all blocks for other ranks,
// broadcasts (the root, once per receiver) and ghost exchanges.
#include "graphrf/mpi/traffic.hpp"

#include <gtest/gtest.h>

#include "graphrf/graph/distributed_graph.hpp"
#include "mpi_test_support.hpp"

using namespace graphrf;
using graphrf::testing::world;

TEST(Traffic, AlltoallvAndBroadcastCountTheBytesForOtherRanks) {
  const Communicator& comm = world();
  const int p = comm.size();
  const std::int64_t k = 3 + comm.rank();  // elements for each destination
  std::vector<double> send(static_cast<size_t>(k * p), 1.0);
  const std::int64_t before = sent_bytes_total();
  comm.alltoallv(send, Counts(static_cast<size_t>(p), k));
  // Blocks for the other ranks, the counts exchange (one int64 per other rank) and the agreement on the
  // message path (one int reduced).
  EXPECT_EQ(sent_bytes_total() - before, (p - 1) * (k * 8 + 8) + (p > 1 ? 4 : 0));
  std::vector<double> values(5, 2.0);
  const std::int64_t before_bcast = sent_bytes_total();
  comm.broadcast(values, 0);
  // The size (8 bytes) and the payload (40 bytes), sent by the root to each of the p - 1 others.
  EXPECT_EQ(sent_bytes_total() - before_bcast, comm.is_root() ? (p - 1) * (8 + 40) : 0);
}

TEST(Traffic, GhostExchangesAreCounted) {
  GraphOptions o;
  o.graph = "grid:6x6";
  const auto g = load_graph(world(), o);
  std::vector<double> mine(static_cast<size_t>(g.n_local()), 1.0), ghosts(g.ghosts.size());
  const std::int64_t before = sent_bytes_total();
  g.ghost_exchange.exchange<double>(mine, ghosts);
  const std::int64_t sent = sent_bytes_total() - before;
  // What this rank sends is what the others receive as ghosts: compare the totals over ranks.
  EXPECT_EQ(world().sum(sent), world().sum(static_cast<std::int64_t>(8 * g.ghosts.size())));
  if (world().size() > 1) EXPECT_GT(world().sum(sent), 0);
}
