#include "graphrf/partition/partitioner.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>

#include "graphrf/core/sorted_unique.hpp"
#include "graphrf/mpi/request_reply.hpp"

namespace graphrf {

void validate_partition_spec(const std::string& spec) {
  if (spec == "block" || spec == "metis" || spec == "ptscotch") return;
  if (spec.starts_with("file:") && spec.size() > 5) return;
  throw InputError("--partition: unknown partitioner '" + spec + "' (expected block, metis, ptscotch or file:PATH)");
}

std::vector<int> compute_partition(const Communicator& comm, const CanonicalGraph& graph, const std::string& spec,
                                   int n_parts, const std::vector<double>& part_weights) {
  validate_partition_spec(spec);
  if (spec == "block") return partition_block(comm, graph, n_parts);
  if (spec == "metis") return partition_metis(comm, graph, n_parts, part_weights);
  if (spec == "ptscotch") return partition_ptscotch(comm, graph, n_parts, part_weights);
  return partition_from_file(comm, graph, spec.substr(5), n_parts);
}

std::vector<int> partition_block(const Communicator& comm, const CanonicalGraph& graph, int n_parts) {
  const auto n_local = static_cast<size_t>(graph.n_local(comm.rank()));
  std::int64_t local_work = 0;
  for (size_t i = 0; i < n_local; ++i) local_work += graph.row_ptr[i + 1] - graph.row_ptr[i] + 1;
  const std::int64_t total = comm.sum(local_work);
  std::int64_t prefix = comm.exscan_sum(local_work);
  std::vector<int> part(n_local);
  for (size_t i = 0; i < n_local; ++i) {
    const std::int64_t w = graph.row_ptr[i + 1] - graph.row_ptr[i] + 1;
    // A node goes to the part holding the midpoint of its work interval: parts are contiguous and balanced.
    const auto mid = static_cast<long double>(2 * prefix + w) * n_parts / static_cast<long double>(2 * total);
    part[i] = std::min(n_parts - 1, static_cast<int>(mid));
    prefix += w;
  }
  return part;
}

std::vector<int> split_within_groups(const Communicator& comm, const CanonicalGraph& graph,
                                    const std::vector<int>& group, const std::vector<int>& first_part) {
  const auto n_local = static_cast<size_t>(graph.n_local(comm.rank()));
  const size_t groups = first_part.size() - 1;
  std::vector<std::int64_t> local_work(groups, 0);
  for (size_t i = 0; i < n_local; ++i)
    local_work[static_cast<size_t>(group[i])] += graph.row_ptr[i + 1] - graph.row_ptr[i] + 1;
  const std::vector<std::int64_t> total = comm.sum(local_work);
  std::vector<std::int64_t> prefix = comm.exscan_sum(local_work);
  std::vector<int> part(n_local);
  for (size_t i = 0; i < n_local; ++i) {
    const auto h = static_cast<size_t>(group[i]);
    const std::int64_t w = graph.row_ptr[i + 1] - graph.row_ptr[i] + 1;
    const int parts = first_part[h + 1] - first_part[h];
    // As partition_block, within the group: the part holding the midpoint of the node's work interval.
    const auto mid = static_cast<long double>(2 * prefix[h] + w) * parts / static_cast<long double>(2 * total[h]);
    part[i] = first_part[h] + std::min(parts - 1, static_cast<int>(mid));
    prefix[h] += w;
  }
  return part;
}

std::vector<int> partition_from_file(const Communicator& comm, const CanonicalGraph& graph, const std::string& path,
                                     int n_parts) {
  struct Entry {
    std::int64_t index;
    std::int64_t part;
  };
  std::vector<Entry> entries;
  std::string share;
  std::int64_t file_size = 0;
  collective_try(comm, [&] {
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) throw InputError("--partition file:" + path + ": cannot open: " + std::strerror(errno));
    std::fseek(f, 0, SEEK_END);
    file_size = std::ftell(f);
    std::fclose(f);
    share = read_line_aligned_share(path, 0, file_size, comm.rank(), comm.size());
  });
  std::int64_t lines = 0, values = 0;
  for (char c : share) lines += c == '\n';
  if (!share.empty() && share.back() != '\n') ++lines;
  // Line numbers and entry indices of this share come from prefix sums over ranks.
  std::vector<std::int64_t> parts_here, line_of;  // part id and local line index of each entry
  std::int64_t bad_line = -1;
  std::string bad_text;
  {
    std::int64_t line = 0;
    size_t pos = 0;
    while (pos < share.size()) {
      size_t end = share.find('\n', pos);
      if (end == std::string::npos) end = share.size();
      std::string_view text(share.data() + pos, end - pos);
      while (!text.empty() && (text.back() == '\r' || text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
      while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
      if (!text.empty() && text[0] != '#' && text[0] != '%') {
        std::int64_t v = 0;
        const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if ((ec != std::errc() || ptr != text.data() + text.size()) && bad_line < 0) {
          bad_line = line;
          bad_text = std::string(text.substr(0, 60));
        }
        parts_here.push_back(v);
        line_of.push_back(line);
      }
      ++line;
      pos = end + 1;
    }
    values = static_cast<std::int64_t>(parts_here.size());
  }
  const std::int64_t first_line = comm.exscan_sum(lines) + 1;
  const std::int64_t first_entry = comm.exscan_sum(values);
  const std::int64_t total = comm.sum(values);
  const std::int64_t n = graph.dist.total();
  collective_try(comm, [&] {
    if (bad_line >= 0)
      throw InputError(path + ":" + std::to_string(first_line + bad_line) + ": expected one integer part id (got '" +
                       bad_text + "')");
  });
  collective_try(comm, [&] {
    if (total != n)
      throw InputError(path + ": has " + std::to_string(total) + " part ids but the graph has " + std::to_string(n) +
                       " nodes (one line per node, in ascending node-id order)");
  });
  collective_try(comm, [&] {
    for (size_t k = 0; k < parts_here.size(); ++k) {
      const std::int64_t v = parts_here[k];
      if (v < 0 || v >= n_parts)
        throw InputError(path + ":" + std::to_string(first_line + line_of[k]) + ": part id " + std::to_string(v) +
                         " out of range 0.." + std::to_string(n_parts - 1) + " (" + std::to_string(n_parts) + " parts)");
    }
  });
  entries.reserve(parts_here.size());
  for (size_t k = 0; k < parts_here.size(); ++k) entries.push_back({first_entry + static_cast<std::int64_t>(k), parts_here[k]});
  // Send each entry to the owner of that canonical index.
  Counts counts(static_cast<size_t>(comm.size()), 0);
  for (const auto& e : entries) ++counts[static_cast<size_t>(graph.dist.owner(e.index))];  // entries ascend: owners are runs
  const auto mine = comm.alltoallv(entries, counts);
  std::vector<int> part(static_cast<size_t>(graph.n_local(comm.rank())));
  const std::int64_t first = graph.first(comm.rank());
  for (const auto& e : mine) part[static_cast<size_t>(e.index - first)] = static_cast<int>(e.part);
  return part;
}

std::optional<BlockDistribution> contiguous_parts(const Communicator& comm, const std::vector<int>& part, int n_parts) {
  const bool ascending = std::is_sorted(part.begin(), part.end());
  // Each rank's first and last part (n_parts and -1 when it owns no node), so the runs can be checked across ranks.
  const std::vector<int> fronts = comm.allgather(part.empty() ? n_parts : part.front());
  const std::vector<int> backs = comm.allgather(part.empty() ? -1 : part.back());
  bool contiguous = comm.min(ascending ? 1 : 0) == 1;
  int last = 0;
  for (size_t r = 0; r < fronts.size() && contiguous; ++r) {
    if (backs[r] < 0) continue;
    contiguous = fronts[r] >= last;
    last = backs[r];
  }
  if (!contiguous) return std::nullopt;
  std::vector<std::int64_t> sizes(static_cast<size_t>(n_parts), 0);
  for (int q : part) ++sizes[static_cast<size_t>(q)];
  sizes = comm.allreduce(sizes, MPI_SUM);
  std::vector<std::int64_t> offsets(static_cast<size_t>(n_parts) + 1, 0);
  for (size_t q = 0; q < sizes.size(); ++q) offsets[q + 1] = offsets[q] + sizes[q];
  return BlockDistribution(std::move(offsets));
}

PartitionQuality partition_quality(const Communicator& comm, const CanonicalGraph& graph, const std::vector<int>& part,
                                   int n_parts) {
  const int rank = comm.rank();
  const std::int64_t first = graph.first(rank);
  const auto n_local = static_cast<size_t>(graph.n_local(rank));
  // Parts of remote neighbours, fetched once per distinct neighbour; remote arcs numbered in arc order, the
  // order the loop below meets them.
  // Parts that are runs in canonical order (block partitions) give a node's part from its index: nothing to ask.
  const auto is_local = [&](std::int64_t c) { return c >= first && c < first + static_cast<std::int64_t>(n_local); };
  const std::optional<BlockDistribution> runs = contiguous_parts(comm, part, n_parts);
  SortedUnique remote;
  std::vector<int> remote_part;
  if (!runs) {
    remote = sorted_unique_outside(graph.col, first, static_cast<std::int64_t>(n_local), static_cast<std::uint64_t>(graph.dist.total()));
    // The answering side only sees its own part vector; pass it through a lambda.
    remote_part = request_reply<int>(
        comm, std::span<const std::int64_t>(remote.values), [&](std::int64_t c) { return graph.dist.owner(c); },
        [&](std::int64_t c) { return part[static_cast<size_t>(c - first)]; });
  }
  size_t next_remote_arc = 0;
  std::int64_t cut = 0;
  std::vector<std::int64_t> nodes(static_cast<size_t>(n_parts), 0), arcs(static_cast<size_t>(n_parts), 0);
  for (size_t i = 0; i < n_local; ++i) {
    const std::int64_t u = first + static_cast<std::int64_t>(i);
    ++nodes[static_cast<size_t>(part[i])];
    arcs[static_cast<size_t>(part[i])] += graph.row_ptr[i + 1] - graph.row_ptr[i];
    for (auto k = graph.row_ptr[i]; k < graph.row_ptr[i + 1]; ++k) {
      const std::int64_t v = graph.col[static_cast<size_t>(k)];
      const int part_of_v = is_local(v)   ? part[static_cast<size_t>(v - first)]
                            : runs ? runs->owner(v)
                                         : remote_part[static_cast<size_t>(remote.slot[next_remote_arc++])];
      if (u < v && part_of_v != part[i]) ++cut;
    }
  }
  nodes = comm.allreduce(nodes, MPI_SUM);
  arcs = comm.allreduce(arcs, MPI_SUM);
  PartitionQuality q;
  q.edge_cut = comm.sum(cut);
  auto balance = [&](const std::vector<std::int64_t>& v) {
    std::int64_t total = 0, biggest = 0;
    for (auto x : v) {
      total += x;
      biggest = std::max(biggest, x);
    }
    return total == 0 ? 1.0 : static_cast<double>(biggest) * n_parts / static_cast<double>(total);
  };
  q.node_balance = balance(nodes);
  q.arc_balance = balance(arcs);
  return q;
}

}  // namespace graphrf
