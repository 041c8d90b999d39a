// fetch_rows on the message path: rows arrive in the order asked for, with the values their owners hold, when a
// rank asks every rank (itself included) for rows, asks some for none, and the rows travel in many messages (a
// message limit that cuts a rank's rows at 1, 2 and 3 rows, and one smaller than a row); a caller's table of the
// wrong size is refused on either path.
#include <gtest/gtest.h>

#include <memory>

#include "graphrf/core/error.hpp"
#include "graphrf/mpi/row_fetch.hpp"
#include "mpi_test_support.hpp"

using namespace graphrf;
using graphrf::testing::world;

namespace {

// Row `global`, column c, as its owner holds it.
double value_of(std::int64_t global, std::int64_t c) { return static_cast<double>(global) * 8.0 + static_cast<double>(c) + 0.5; }

}  // namespace

TEST(FetchRows, RowsArriveInTheOrderAskedForInManyMessages) {
  const Communicator& comm = world();
  const int me = comm.rank(), p = comm.size();
  // Uneven parts: rank r owns 5 + 3 r rows.
  std::vector<std::int64_t> offsets{0};
  for (int r = 0; r < p; ++r) offsets.push_back(offsets.back() + 5 + 3 * r);
  const BlockDistribution dist(offsets);
  const std::int64_t width = 3;
  std::vector<double> owned;
  for (std::int64_t g = dist.first(me); g < dist.first(me) + dist.count(me); ++g)
    for (std::int64_t c = 0; c < width; ++c) owned.push_back(value_of(g, c));
  // Every (me + 1)-th row of the graph, its own included; none of rank (me + 1) % p's when there are several ranks.
  std::vector<std::int64_t> needed;
  for (std::int64_t g = me % 2; g < dist.total(); g += me + 1)
    if (p == 1 || dist.owner(g) != (me + 1) % p) needed.push_back(g);
  const std::int64_t saved = Communicator::max_message_bytes();
  const auto row_bytes = width * static_cast<std::int64_t>(sizeof(double));
  for (std::int64_t limit : {row_bytes, 2 * row_bytes + 5, 3 * row_bytes, row_bytes - 1, saved}) {
    Communicator::set_max_message_bytes(limit);
    std::vector<double> rows(needed.size() * static_cast<size_t>(width));
    fetch_rows(comm, dist, needed, owned, width, rows);
    Communicator::set_max_message_bytes(saved);
    for (size_t k = 0; k < needed.size(); ++k)
      for (std::int64_t c = 0; c < width; ++c)
        EXPECT_EQ(rows[k * static_cast<size_t>(width) + static_cast<size_t>(c)], value_of(needed[k], c))
            << "limit " << limit << ", row " << needed[k] << ", column " << c;
  }
}

// The rows are written in place, so a table without room for exactly the rows asked for is refused before anything
// is sent, on both paths (every rank here passes one value too few or too many, so every rank throws and none waits
// in a collective).
TEST(FetchRows, ATableOfTheWrongSizeIsRefused) {
  const Communicator& comm = world();
  const int me = comm.rank(), p = comm.size();
  std::vector<std::int64_t> offsets{0};
  for (int r = 0; r < p; ++r) offsets.push_back(offsets.back() + 2);
  const BlockDistribution dist(offsets);
  const std::int64_t width = 3;
  const std::vector<double> owned(2 * static_cast<size_t>(width), 1.0);
  // The next rank's rows (none of them mine, as the host path wants; no rows at all on one rank).
  std::vector<std::int64_t> needed;
  if (p > 1) needed = {dist.first((me + 1) % p), dist.first((me + 1) % p) + 1};
  const auto hosts = std::make_shared<const HostTopology>(comm, 0);
  const size_t values = needed.size() * static_cast<size_t>(width);
  for (size_t size : {values + 1, values > 0 ? values - 1 : values + 2}) {
    std::vector<double> out(size);
    EXPECT_THROW(fetch_rows(comm, dist, needed, owned, width, out), Error) << size << " values";
    EXPECT_THROW(fetch_rows(comm, hosts, dist, needed, owned, width, out), Error) << size << " values";
  }
  std::vector<double> out(values);
  fetch_rows(comm, hosts, dist, needed, owned, width, out);
  EXPECT_EQ(out, std::vector<double>(values, 1.0));
}
