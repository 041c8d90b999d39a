#include "graphrf/graph/node_lookup.hpp"

#include <algorithm>
#include <numeric>
#include <string_view>

namespace graphrf {

namespace {

// The position of the first of `sorted` (in byte order) that is not below `name`: sorted.size() if none.
std::size_t first_not_below(const NodeNames& sorted, std::string_view name) {
  std::size_t lo = 0, hi = sorted.size();
  while (lo < hi) {
    const std::size_t mid = (lo + hi) / 2;
    if (sorted[mid] < name) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

}  // namespace

std::vector<std::int64_t> find_named_nodes(const DistributedGraph& g, const NodeNames& queries) {
  const Communicator& comm = *g.comm;
  const auto p = static_cast<std::size_t>(comm.size());
  const NodeNames& names = g.names;  // this rank's block, in byte order
  const std::int64_t base = comm.exscan_sum(static_cast<std::int64_t>(names.size()));

  // 1. Every rank learns each block's last name (blocks follow in byte order; empty blocks send none).
  NodeNames lasts;
  std::vector<int> last_rank;
  {
    std::vector<std::int64_t> lengths;
    std::vector<char> bytes;
    Counts length_counts(p, 0), byte_counts(p, 0);
    const std::string_view last = names.empty() ? std::string_view() : names[names.size() - 1];
    for (std::size_t r = 0; r < p; ++r) {
      lengths.push_back(names.empty() ? -1 : static_cast<std::int64_t>(last.size()));
      bytes.insert(bytes.end(), last.begin(), last.end());
      length_counts[r] = 1;
      byte_counts[r] = static_cast<std::int64_t>(last.size());
    }
    const auto all_lengths = comm.alltoallv(lengths, length_counts);
    const auto all_bytes = comm.alltoallv(bytes, byte_counts);
    std::size_t offset = 0;
    for (std::size_t r = 0; r < p; ++r) {
      if (all_lengths[r] < 0) continue;
      const auto length = static_cast<std::size_t>(all_lengths[r]);
      lasts.push_back(std::string_view(all_bytes.data() + offset, length));
      last_rank.push_back(static_cast<int>(r));
      offset += length;
    }
  }
  // 2. Each query goes to the first block whose last name is not below it (none: no such node).
  std::vector<int> dest(queries.size(), -1);
  for (std::size_t k = 0; k < queries.size(); ++k) {
    if (const std::size_t at = first_not_below(lasts, queries[k]); at < lasts.size()) dest[k] = last_rank[at];
  }
  std::vector<std::size_t> order(queries.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return dest[a] < dest[b]; });
  std::vector<std::int64_t> lengths;
  std::vector<char> bytes;
  Counts name_counts(p, 0), byte_counts(p, 0);
  for (std::size_t k : order) {
    if (dest[k] < 0) continue;
    const std::string_view q = queries[k];
    lengths.push_back(static_cast<std::int64_t>(q.size()));
    bytes.insert(bytes.end(), q.begin(), q.end());
    ++name_counts[static_cast<std::size_t>(dest[k])];
    byte_counts[static_cast<std::size_t>(dest[k])] += static_cast<std::int64_t>(q.size());
  }
  Counts asked_counts;
  const auto got_lengths = comm.alltoallv(lengths, name_counts, &asked_counts);
  const auto got_bytes = comm.alltoallv(bytes, byte_counts);
  const NodeNames asked = NodeNames::from_lengths(std::string_view(got_bytes.data(), got_bytes.size()), got_lengths);

  // 3. Binary search in this block; answers return in the order each rank asked.
  std::vector<std::int64_t> answers(asked.size(), -1);
  for (std::size_t k = 0; k < asked.size(); ++k) {
    const std::size_t at = first_not_below(names, asked[k]);
    if (at < names.size() && names[at] == asked[k]) answers[k] = base + static_cast<std::int64_t>(at);
  }
  const auto replies = comm.alltoallv(answers, asked_counts);
  std::vector<std::int64_t> out(queries.size(), -1);
  std::size_t next = 0;
  for (std::size_t k : order)
    if (dest[k] >= 0) out[k] = replies[next++];
  return out;
}

}  // namespace graphrf
