#include "graphrf/mpi/row_fetch.hpp"

#include <algorithm>
#include <string>

#include "graphrf/mpi/ghost_exchange.hpp"
#include "graphrf/mpi/request.hpp"
#include "graphrf/mpi/traffic.hpp"

namespace graphrf {

namespace {

constexpr int kFetchTag = 7501;
// Replies are packed a message at a time, into one of two buffers of this size: the whole reply (S and z, 288 MB a
// rank on random:1000000:10 as two hosts) never exists on the owner, whose memory stays what its own rows need.
constexpr std::int64_t kPackBytes = std::int64_t{8} << 20;

// Rows per message for rows of `width` doubles: a message stays within the pack buffer and
// Communicator::max_message_bytes(), but holds at least one row.
std::int64_t rows_per_message(std::int64_t width) {
  const std::int64_t bytes = std::min(kPackBytes, Communicator::max_message_bytes());
  return std::max<std::int64_t>(1, bytes / (width * static_cast<std::int64_t>(sizeof(double))));
}

// Both paths write the fetched rows in place: a caller's table of the wrong size would be overrun.
void check_room(std::span<const double> out, size_t rows, std::int64_t width) {
  const size_t values = rows * static_cast<size_t>(width);
  if (out.size() != values)
    throw Error("fetch_rows: room for " + std::to_string(out.size()) + " values, " + std::to_string(values) + " fetched");
}

}  // namespace

void fetch_rows(const Communicator& comm, const BlockDistribution& dist, std::span<const std::int64_t> needed,
                std::span<const double> owned, std::int64_t width, std::span<double> out) {
  const auto p = static_cast<size_t>(comm.size());
  const auto me = static_cast<size_t>(comm.rank());
  const auto w = static_cast<size_t>(width);
  check_room(out, needed.size(), width);
  Counts counts(p, 0);
  for (auto g : needed) ++counts[static_cast<size_t>(dist.owner(g))];  // sorted: owners form runs
  Counts asked_counts;
  const auto asked = comm.alltoallv(needed, counts, &asked_counts);
  std::vector<std::int64_t> at(p + 1, 0), asked_at(p + 1, 0);  // where each rank's rows start in out / in asked
  for (size_t r = 0; r < p; ++r) {
    at[r + 1] = at[r] + counts[r];
    asked_at[r + 1] = asked_at[r] + asked_counts[r];
  }
  const std::int64_t first = dist.first(comm.rank());
  const auto pack = [&](std::int64_t from, std::int64_t rows, double* to) {  // asked rows from .. from + rows
    for (std::int64_t k = 0; k < rows; ++k)
      std::copy_n(owned.data() + static_cast<size_t>(asked[static_cast<size_t>(from + k)] - first) * w, w, to + static_cast<size_t>(k) * w);
  };

  const std::int64_t per_message = rows_per_message(width);
  std::vector<Request> receives;
  for (size_t r = 0; r < p; ++r)
    for (std::int64_t done = 0; r != me && done < counts[r]; done += per_message) {
      const auto rows = std::min(per_message, counts[r] - done);
      check_mpi(MPI_Irecv(out.data() + static_cast<size_t>(at[r] + done) * w, static_cast<int>(rows * width), MPI_DOUBLE,
                          static_cast<int>(r), kFetchTag, comm.get(), receives.emplace_back().start()),
                "MPI_Irecv");
    }
  pack(asked_at[me], asked_counts[me], out.data() + static_cast<size_t>(at[me]) * w);  // rows a rank asks itself for
  // Replies go round the ranks from the next one (not every rank to rank 0 first), each message packed into the
  // buffer whose previous message has left.
  std::vector<double> buffers[2];
  Request sent[2];
  int next = 0;
  for (size_t step = 1; step < p; ++step) {
    const size_t r = (me + step) % p;
    for (std::int64_t done = 0; done < asked_counts[r]; done += per_message) {
      const auto rows = std::min(per_message, asked_counts[r] - done);
      sent[next].wait();
      std::vector<double>& buffer = buffers[next];
      if (buffer.empty()) buffer.resize(static_cast<size_t>(per_message) * w);
      pack(asked_at[r] + done, rows, buffer.data());
      check_mpi(MPI_Isend(buffer.data(), static_cast<int>(rows * width), MPI_DOUBLE, static_cast<int>(r), kFetchTag,
                          comm.get(), sent[next].start()),
                "MPI_Isend");
      count_sent_bytes(rows * width * static_cast<std::int64_t>(sizeof(double)));
      next = 1 - next;
    }
  }
  for (Request& r : sent) r.wait();
  for (Request& r : receives) r.wait();
}

void fetch_rows(const Communicator& comm, const std::shared_ptr<const HostTopology>& hosts, const BlockDistribution& dist,
                std::span<const std::int64_t> needed, std::span<const double> owned, std::int64_t width,
                std::span<double> out) {
  if (!hosts || !hosts->sharing()) return fetch_rows(comm, dist, needed, owned, width, out);
  // The rows wanted are ghosts of a one-off exchange: owners publish only the rows their host peers asked for
  // (publishing whole tables cost a query pass on a 1000 x 1000 grid three times its own work), other hosts get
  // messages from neighbours only.
  check_room(out, needed.size(), width);
  const GhostExchange exchange(comm, dist, needed);
  exchange.exchange<double>(owned, out, static_cast<int>(width), hosts);
}

}  // namespace graphrf
