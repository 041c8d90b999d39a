#include "graphrf/io/canonical_graph.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "graphrf/io/name_sort.hpp"
#include "graphrf/mpi/request_reply.hpp"
#include "graphrf/core/timer.hpp"

namespace graphrf {

namespace {

// Ids that no format declares (edge lists) get canonical indices by a distributed sample sort:
// ids are routed to buckets bounded by splitters, each rank sorts its bucket, and an exclusive scan of
// bucket sizes turns positions into global indices. Returns (distribution, sorted ids owned here, bucket splitters).
struct SortedIds {
  BlockDistribution dist;
  std::vector<std::int64_t> owned_ids;  // ascending, canonical index = dist.first(rank) + position
  std::vector<std::int64_t> splitters;  // bucket of id = upper_bound(splitters, id)
  int bucket(std::int64_t id) const {
    return static_cast<int>(std::upper_bound(splitters.begin(), splitters.end(), id) - splitters.begin());
  }
};

SortedIds sort_distinct_ids(const Communicator& comm, const std::vector<std::int64_t>& local_distinct) {
  const int p = comm.size();
  constexpr int kSamplesPerRank = 64;
  std::vector<std::int64_t> samples;
  if (!local_distinct.empty())
    for (int k = 0; k < kSamplesPerRank; ++k)
      samples.push_back(local_distinct[local_distinct.size() * static_cast<size_t>(k) / kSamplesPerRank]);
  // Everyone gets everyone's samples: each destination receives the same block.
  std::vector<std::int64_t> send;
  Counts counts(static_cast<size_t>(p), static_cast<std::int64_t>(samples.size()));
  for (int r = 0; r < p; ++r) send.insert(send.end(), samples.begin(), samples.end());
  std::vector<std::int64_t> all = comm.alltoallv(send, counts);
  std::sort(all.begin(), all.end());
  SortedIds out;
  for (int j = 1; j < p; ++j)
    out.splitters.push_back(all.empty() ? 0 : all[all.size() * static_cast<size_t>(j) / static_cast<size_t>(p)]);

  Counts route(static_cast<size_t>(p), 0);
  for (auto id : local_distinct) ++route[static_cast<size_t>(out.bucket(id))];  // local_distinct is sorted: buckets are runs
  out.owned_ids = comm.alltoallv(local_distinct, route);
  std::sort(out.owned_ids.begin(), out.owned_ids.end());
  out.owned_ids.erase(std::unique(out.owned_ids.begin(), out.owned_ids.end()), out.owned_ids.end());
  const auto sizes = comm.allgather(static_cast<std::int64_t>(out.owned_ids.size()));
  std::vector<std::int64_t> offsets(static_cast<size_t>(p) + 1, 0);
  for (int r = 0; r < p; ++r) offsets[static_cast<size_t>(r) + 1] = offsets[static_cast<size_t>(r)] + sizes[static_cast<size_t>(r)];
  out.dist = BlockDistribution(std::move(offsets));
  return out;
}

// A node's original id or name for messages, cut to fit a fixed-size (trivially copyable) reply.
struct ShortName {
  char text[64];
};

ShortName short_name_of(const CanonicalGraph& g, size_t local) {
  ShortName out{};
  const std::string text = g.report.string_ids ? std::string(g.names[local]) : std::to_string(g.original_id[local]);
  std::memcpy(out.text, text.data(), std::min(text.size(), sizeof(out.text) - 1));
  return out;
}

// Listed nodes' labels (by canonical index, each index once) -> the names of this rank's owned nodes, in order.
NodeNames route_labels_to_owners(const Communicator& comm, const BlockDistribution& dist,
                                 const std::vector<std::int64_t>& canonical, const NodeNames& labels) {
  const auto p = static_cast<std::size_t>(comm.size());
  std::vector<std::size_t> order(canonical.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return canonical[a] < canonical[b]; });
  Counts node_counts(p, 0), byte_counts(p, 0);
  std::vector<std::int64_t> index_and_length;
  std::vector<char> bytes;
  for (std::size_t k : order) {
    const auto owner = static_cast<std::size_t>(dist.owner(canonical[k]));
    node_counts[owner] += 2;
    byte_counts[owner] += static_cast<std::int64_t>(labels[k].size());
    index_and_length.push_back(canonical[k]);
    index_and_length.push_back(static_cast<std::int64_t>(labels[k].size()));
    bytes.insert(bytes.end(), labels[k].begin(), labels[k].end());
  }
  const auto got = comm.alltoallv(index_and_length, node_counts);
  const auto got_bytes = comm.alltoallv(bytes, byte_counts);
  // Place each label at its owned position (senders' runs are each ascending, not merged).
  const std::int64_t first = dist.first(comm.rank());
  std::vector<std::string_view> at(static_cast<std::size_t>(dist.count(comm.rank())));
  std::size_t offset = 0;
  for (std::size_t k = 0; k + 1 < got.size(); k += 2) {
    const auto length = static_cast<std::size_t>(got[k + 1]);
    at[static_cast<std::size_t>(got[k] - first)] = std::string_view(got_bytes.data() + offset, length);
    offset += length;
  }
  NodeNames names;
  for (std::string_view label : at) names.push_back(label);
  return names;
}

// One direction of an arc, routed to the owner of its source. 24 bytes: the direction rides in the target's
// lowest bit, so that ordering by `target` orders by (dst, direction).
struct DirectedRecord {
  std::int64_t src;
  std::int64_t target;  // dst * 2 + direction (0: as listed in the input, 1: the mirror copy made by symmetrisation)
  double w;
};

// A record once grouped by row: its row is where it lies, so the source is left behind (16 bytes, not 24).
struct RowEntry {
  std::int64_t target;  // as DirectedRecord::target
  double w;
  std::int64_t dst() const { return target >> 1; }
  std::int64_t direction() const { return target & 1; }
};

}  // namespace

CanonicalGraph assemble_canonical_graph(const Communicator& comm, ArcInput input, DuplicatePolicy duplicates,
                                        bool directed) {
  Timer timer;
  CanonicalGraph g;
  g.report = std::move(input.report);
  g.report.duplicate_policy = duplicate_policy_name(duplicates);
  g.report.directed = directed;
  const int rank = comm.rank();

  // 1. Canonical numbering of the arc endpoints.
  if (input.declared_nodes >= 0) {
    g.dist = BlockDistribution::uniform(input.declared_nodes, comm.size());
    for (auto& a : input.arcs) {
      a.u -= input.id_base;
      a.v -= input.id_base;
    }
    g.original_id.resize(static_cast<size_t>(g.dist.count(rank)));
    for (size_t k = 0; k < g.original_id.size(); ++k)
      g.original_id[k] = g.dist.first(rank) + static_cast<std::int64_t>(k) + input.id_base;
  } else if (input.string_ids) {
    SortedNames sorted = sort_names(comm, input.names);
    input.names = NodeNames{};
    for (auto& a : input.arcs) {
      a.u = sorted.index_of[static_cast<size_t>(a.u)];
      a.v = sorted.index_of[static_cast<size_t>(a.v)];
    }
    g.dist = std::move(sorted.dist);
    g.original_id.resize(static_cast<size_t>(g.dist.count(rank)));
    std::iota(g.original_id.begin(), g.original_id.end(), g.dist.first(rank));
    g.names = std::move(sorted.owned);
  } else {
    std::vector<std::int64_t> ids;
    ids.reserve(2 * input.arcs.size() + input.self_loop_ids.size());
    for (const auto& a : input.arcs) {
      ids.push_back(a.u);
      ids.push_back(a.v);
    }
    ids.insert(ids.end(), input.self_loop_ids.begin(), input.self_loop_ids.end());  // isolated if nothing else
    ids.insert(ids.end(), input.listed_node_ids.begin(), input.listed_node_ids.end());
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    SortedIds sorted = sort_distinct_ids(comm, ids);
    const std::int64_t base = sorted.dist.first(rank);
    const auto index_of = request_reply<std::int64_t>(
        comm, std::span<const std::int64_t>(ids), [&](std::int64_t id) { return sorted.bucket(id); },
        [&](std::int64_t id) {
          return base + (std::lower_bound(sorted.owned_ids.begin(), sorted.owned_ids.end(), id) - sorted.owned_ids.begin());
        });
    auto canon = [&](std::int64_t id) {
      return index_of[static_cast<size_t>(std::lower_bound(ids.begin(), ids.end(), id) - ids.begin())];
    };
    for (auto& a : input.arcs) {
      a.u = canon(a.u);
      a.v = canon(a.v);
    }
    for (auto& id : input.listed_node_ids) id = canon(id);  // listed nodes by canonical index from here on
    g.dist = std::move(sorted.dist);
    g.original_id = std::move(sorted.owned_ids);
  }
  const std::int64_t n = g.dist.total();
  collective_try(comm, [&] {
    if (n == 0) throw InputError(g.report.source + ": empty graph (no nodes)");
  });
  if (input.nodes_listed) {
    // Every endpoint must be a listed node, and no id listed twice: the distinct listed ids number all the
    // listed nodes and all the ids.
    std::vector<std::int64_t> listed = input.listed_node_ids;
    std::sort(listed.begin(), listed.end());
    listed.erase(std::unique(listed.begin(), listed.end()), listed.end());
    const std::int64_t distinct = sort_distinct_ids(comm, listed).dist.total();
    const std::int64_t blocks = comm.sum(static_cast<std::int64_t>(input.listed_node_ids.size()));
    collective_try(comm, [&] {
      if (blocks != distinct)
        throw InputError(g.report.source + ": " + std::to_string(blocks) + " node blocks but " +
                         std::to_string(distinct) + " distinct node ids (two node blocks share an id)");
      if (distinct != n)
        throw InputError(g.report.source + ": edges name " + std::to_string(n - distinct) +
                         " node id(s) that have no node block");
    });
    // Listed names are GML labels, or the names of an HDF5 graph's string ids (report.string_ids already set).
    const bool named = comm.max(static_cast<std::uint64_t>(input.listed_node_labels.bytes().size())) > 0;
    g.report.node_labels = named && !g.report.string_ids;
    if (named) g.names = route_labels_to_owners(comm, g.dist, input.listed_node_ids, input.listed_node_labels);
  }

  // 2. Route both directions of every arc (directed: the arc as given) to the owner of its source. Records this
  // rank owns stay here: they go first into the array that then receives the other ranks' behind them.
  const bool mirror = !directed;
  collective_try(comm, [&] {
    if (n > (std::int64_t{1} << 61)) throw InputError(g.report.source + ": more than 2^61 nodes");
  });
  std::vector<DirectedRecord> records;
  {
    const auto p = static_cast<size_t>(comm.size());
    const auto me = static_cast<size_t>(rank);
    Counts counts(p, 0);
    for (const auto& a : input.arcs) {
      ++counts[static_cast<size_t>(g.dist.owner(a.u))];
      if (mirror && a.u != a.v) ++counts[static_cast<size_t>(g.dist.owner(a.v))];
    }
    const std::int64_t kept = counts[me];
    counts[me] = 0;
    const Counts incoming = comm.exchange_counts(counts);
    std::int64_t arriving = 0;
    for (auto c : incoming) arriving += c;
    std::vector<std::int64_t> pos(p + 1, 0);
    for (size_t r = 0; r < p; ++r) pos[r + 1] = pos[r] + counts[r];
    std::vector<DirectedRecord> send(static_cast<size_t>(pos[p]));
    records.resize(static_cast<size_t>(kept + arriving));
    size_t next_kept = 0;
    auto place = [&](std::int64_t src, std::int64_t dst, double w, std::int64_t direction) {
      const auto owner = static_cast<size_t>(g.dist.owner(src));
      const DirectedRecord record{src, 2 * dst + direction, w};
      if (owner == me)
        records[next_kept++] = record;
      else
        send[static_cast<size_t>(pos[owner]++)] = record;
    };
    for (const auto& a : input.arcs) {
      place(a.u, a.v, a.w, 0);
      if (mirror && a.u != a.v) place(a.v, a.u, a.w, 1);
    }
    std::vector<Arc>().swap(input.arcs);
    comm.alltoallv_into(std::span<const DirectedRecord>(send), counts, std::span<DirectedRecord>(records).subspan(static_cast<size_t>(kept)),
                        incoming);
  }
  // 3. Order by (src, dst, direction, weight): sorting by weight too makes sums independent of arrival order
  // (bitwise reproducible). Sources are this rank's rows, so a counting sort groups the records by row (one
  // pass instead of a comparison sort of all records) and each row, a few dozen records, is sorted on its own.
  // Grouped, a record needs no source: the copy is two thirds of the records' size (an in-place grouping, a
  // chain of swaps each waiting for the last one's cache miss, took four times as long).
  const std::int64_t first = g.dist.first(rank);
  const auto n_local = static_cast<size_t>(g.dist.count(rank));
  std::vector<std::int64_t> row_start(n_local + 1, 0);
  std::vector<RowEntry> entries(records.size());
  {
    for (const auto& r : records) ++row_start[static_cast<size_t>(r.src - first) + 1];
    for (size_t k = 0; k < n_local; ++k) row_start[k + 1] += row_start[k];
    std::vector<std::int64_t> next(row_start.begin(), row_start.end() - 1);
    for (const auto& r : records) entries[static_cast<size_t>(next[static_cast<size_t>(r.src - first)]++)] = {r.target, r.w};
    std::vector<DirectedRecord>().swap(records);
    for (size_t k = 0; k < n_local; ++k)
      std::sort(entries.begin() + row_start[k], entries.begin() + row_start[k + 1], [](const RowEntry& a, const RowEntry& b) {
        if (a.target != b.target) return a.target < b.target;
        return a.w < b.w;
      });
  }

  // 4. Merge repeated arcs per direction, then combine the two directions of each edge.
  g.row_ptr.assign(n_local + 1, 0);
  g.col.reserve(entries.size());
  g.weight.reserve(entries.size());
  std::int64_t duplicates_merged = 0, reciprocal = 0, conflicts = 0, edges_here = 0, kept_loops = 0;
  std::int64_t dup_src = -1, dup_dst = -1;
  for (size_t row = 0; row < n_local; ++row) {
    const std::int64_t src = first + static_cast<std::int64_t>(row);
    const auto row_end = static_cast<size_t>(row_start[row + 1]);
    size_t i = static_cast<size_t>(row_start[row]);
    while (i < row_end) {
      const std::int64_t dst = entries[i].dst();
      double w_dir[2] = {-1, -1};
      while (i < row_end && entries[i].dst() == dst) {
        const auto dir = entries[i].direction();
        double w = entries[i].w;
        size_t j = i + 1;
        for (; j < row_end && entries[j].target == entries[i].target; ++j) {
          w = duplicates == DuplicatePolicy::sum ? w + entries[j].w : std::max(w, entries[j].w);
          if (dir == 0) {
            ++duplicates_merged;
            if (dup_src < 0) {
              dup_src = src;
              dup_dst = dst;
            }
          }
        }
        w_dir[dir] = w;
        i = j;
      }
      const bool both = w_dir[0] >= 0 && w_dir[1] >= 0;
      if (both && src < dst) {
        ++reciprocal;
        if (w_dir[0] != w_dir[1]) ++conflicts;
      }
      if (src < dst || (directed && src != dst)) ++edges_here;
      if (src == dst) {
        ++edges_here;
        ++kept_loops;
      }
      g.col.push_back(dst);
      g.weight.push_back(std::max(w_dir[0], w_dir[1]));
      ++g.row_ptr[row + 1];
    }
  }
  std::vector<RowEntry>().swap(entries);
  for (size_t k = 0; k < n_local; ++k) g.row_ptr[k + 1] += g.row_ptr[k];

  if (duplicates == DuplicatePolicy::error) {
    // Name the first offending edge by original ids or names (its target may live on another rank).
    const bool mine = dup_src >= 0;
    std::vector<std::int64_t> ask;
    if (mine) ask.push_back(dup_dst);
    const auto dst_name = request_reply<ShortName>(
        comm, std::span<const std::int64_t>(ask), [&](std::int64_t c) { return g.dist.owner(c); },
        [&](std::int64_t c) { return short_name_of(g, static_cast<size_t>(c - first)); });
    collective_try(comm, [&] {
      if (mine)
        throw InputError(g.report.source + ": duplicate edge " + short_name_of(g, static_cast<size_t>(dup_src - first)).text +
                         " -> " + dst_name[0].text + " (graph.duplicates error; use sum or max to merge)");
    });
  }

  g.report.duplicate_arcs_merged = comm.sum(duplicates_merged);
  g.report.reciprocal_pairs = comm.sum(reciprocal);
  g.report.reciprocal_weight_conflicts = comm.sum(conflicts);
  g.report.self_loops_kept = comm.sum(kept_loops);
  g.n_edges_global = comm.sum(edges_here);
  collective_try(comm, [&] {
    if (g.n_edges_global == 0) throw InputError(g.report.source + ": empty graph (no edges)");
  });
  g.report.assemble_seconds = comm.max(timer.seconds());
  return g;
}

}  // namespace graphrf
