// Start rows shared out inside a host (start_row_claims.hpp), across processes: every rank claims its own rows in
// batches and then takes what peers have left; gathered, the claims cover every rank's rows exactly once, each
// owner's claims are a prefix of its rows and own_end() says where it ends.
#include <gtest/gtest.h>

#include <vector>

#include "graphrf/mpi/host_topology.hpp"
#include "graphrf/walks/start_row_claims.hpp"
#include "mpi_test_support.hpp"

using namespace graphrf;
using graphrf::testing::world;

TEST(StartRowClaims, RanksOfAHostClaimEveryRowOnce) {
  const HostTopology hosts(world(), 0);
  const Communicator& host = hosts.host();
  const int p = host.size();
  // Uneven ranges, the last rank's largest, so that peers run out first and take from it.
  const auto rows_of = [](int r) { return std::int64_t{3000} * (r + 1) + 17 * r; };
  StartRowClaims claims(host, rows_of(host.rank()));
  // Records: (owner, begin, end).
  std::vector<std::int64_t> mine;
  for (;;) {
    const RowRange own = claims.claim_own(5);
    if (own.empty()) break;
    mine.insert(mine.end(), {host.rank(), own.begin, own.end});
  }
  std::int64_t taken = 0;
  while (const auto peer = claims.claim_from_peer(3, 7)) {
    EXPECT_LE(peer->rows.size(), 7);
    mine.insert(mine.end(), {peer->peer, peer->rows.begin, peer->rows.end});
    taken += peer->rows.size();
  }
  host.barrier();  // every claim made: the words are final
  const std::int64_t own_end = claims.own_end();
  const std::vector<std::int64_t> ends = host.allgather(own_end);
  Counts counts(static_cast<size_t>(p), static_cast<std::int64_t>(mine.size()));
  std::vector<std::int64_t> send;
  for (int r = 0; r < p; ++r) send.insert(send.end(), mine.begin(), mine.end());
  const std::vector<std::int64_t> all = host.alltoallv(send, counts);
  std::vector<std::vector<int>> claimed(static_cast<size_t>(p));
  for (int r = 0; r < p; ++r) claimed[static_cast<size_t>(r)].assign(static_cast<size_t>(rows_of(r)), 0);
  for (size_t k = 0; k < all.size(); k += 3)
    for (std::int64_t i = all[k + 1]; i < all[k + 2]; ++i) ++claimed[static_cast<size_t>(all[k])][static_cast<size_t>(i)];
  for (int r = 0; r < p; ++r)
    for (std::int64_t i = 0; i < rows_of(r); ++i)
      ASSERT_EQ(claimed[static_cast<size_t>(r)][static_cast<size_t>(i)], 1) << "rank " << r << " row " << i;
  // The owner's own claims are exactly rows 0 .. own_end - 1.
  std::int64_t own_rows = 0;
  for (size_t k = 0; k < mine.size(); k += 3)
    if (mine[k] == host.rank()) own_rows += mine[k + 2] - mine[k + 1];
  EXPECT_EQ(own_rows, own_end);
  // What peers took is what the owners' words lost at their ends.
  std::int64_t lost = 0;
  for (int r = 0; r < p; ++r) lost += rows_of(r) - ends[static_cast<size_t>(r)];
  EXPECT_EQ(host.sum(taken), lost);
  if (p == 1) EXPECT_EQ(taken, 0);
}
