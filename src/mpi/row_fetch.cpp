#include "graphrf/mpi/row_fetch.hpp"

#include <algorithm>

#include "graphrf/mpi/shared_array.hpp"

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

std::vector<double> fetch_rows(const Communicator& comm, const HostTopology* hosts, const BlockDistribution& dist,
                               std::span<const std::int64_t> needed, std::span<const double> owned, std::int64_t width) {
  if (!hosts || !hosts->sharing()) return fetch_rows(comm, dist, needed, owned, width);
  // The host owns one contiguous range of global indices, so its rows are one run of `needed`.
  const std::int64_t host_first = dist.first(hosts->first_rank(hosts->index()));
  const std::int64_t host_end = dist.first(hosts->end_rank(hosts->index()));
  const auto run_begin = std::lower_bound(needed.begin(), needed.end(), host_first);
  const auto run_end = std::lower_bound(run_begin, needed.end(), host_end);
  std::vector<std::int64_t> elsewhere(needed.begin(), run_begin);
  elsewhere.insert(elsewhere.end(), run_end, needed.end());
  const std::vector<double> messages = fetch_rows(comm, dist, elsewhere, owned, width);
  elsewhere = {};

  // The host's tables one after another in rank order: the rows of the host's range in global order.
  const SharedArray<double> table(hosts->host(), static_cast<std::int64_t>(owned.size()));
  std::copy(owned.begin(), owned.end(), table.mine());
  table.synchronize();
  const auto w = static_cast<size_t>(width);
  std::vector<double> out(needed.size() * w);
  const auto before = static_cast<size_t>(run_begin - needed.begin());
  const auto in_host = static_cast<size_t>(run_end - run_begin);
  std::copy_n(messages.begin(), before * w, out.begin());
  for (size_t k = 0; k < in_host; ++k)
    std::copy_n(table.data() + (run_begin[static_cast<std::ptrdiff_t>(k)] - host_first) * width, w, out.begin() + static_cast<std::ptrdiff_t>((before + k) * w));
  std::copy(messages.begin() + static_cast<std::ptrdiff_t>(before * w), messages.end(),
            out.begin() + static_cast<std::ptrdiff_t>((before + in_host) * w));
  table.synchronize();  // nobody frees the window while another rank still reads it
  return out;
}

}  // namespace graphrf
