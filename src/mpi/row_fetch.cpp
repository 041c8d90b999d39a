#include "graphrf/mpi/row_fetch.hpp"

#include <algorithm>

#include "graphrf/mpi/ghost_exchange.hpp"

namespace graphrf {

std::vector<double> fetch_rows(const Communicator& comm, const BlockDistribution& dist, std::span<const std::int64_t> needed,
                               std::span<const double> owned, std::int64_t width) {
  const auto p = static_cast<size_t>(comm.size());
  Counts counts(p, 0);
  for (auto g : needed) ++counts[static_cast<size_t>(dist.owner(g))];  // sorted: owners form runs
  Counts asked_counts;
  const auto asked = comm.alltoallv(needed, counts, &asked_counts);
  const std::int64_t first = dist.first(comm.rank());
  std::vector<double> reply(asked.size() * static_cast<size_t>(width));
  for (size_t k = 0; k < asked.size(); ++k) {
    const auto row = static_cast<size_t>(asked[k] - first) * static_cast<size_t>(width);
    std::copy(owned.begin() + static_cast<std::ptrdiff_t>(row), owned.begin() + static_cast<std::ptrdiff_t>(row) + width,
              reply.begin() + static_cast<std::ptrdiff_t>(k * static_cast<size_t>(width)));
  }
  for (auto& c : asked_counts) c *= width;
  return comm.alltoallv(reply, asked_counts);
}

std::vector<double> fetch_rows(const Communicator& comm, const std::shared_ptr<const HostTopology>& hosts,
                               const BlockDistribution& dist, std::span<const std::int64_t> needed,
                               std::span<const double> owned, std::int64_t width) {
  if (!hosts || !hosts->sharing()) return fetch_rows(comm, dist, needed, owned, width);
  // The rows wanted are ghosts of a one-off exchange: owners publish only the rows their host peers asked for
  // (publishing whole tables cost a query pass on a 1000 x 1000 grid three times its own work), other hosts get
  // messages from neighbours only.
  const GhostExchange exchange(comm, dist, needed);
  std::vector<double> out(needed.size() * static_cast<size_t>(width));
  exchange.exchange<double>(owned, out, static_cast<int>(width), hosts);
  return out;
}

}  // namespace graphrf
