#include "graphrf/graph/distributed_graph.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>

#include "graphrf/core/memory_size.hpp"
#include "graphrf/mpi/log.hpp"
#include "graphrf/mpi/memory_limit.hpp"
#include "graphrf/mpi/phase_progress.hpp"
#include "graphrf/mpi/request_reply.hpp"
#include "graphrf/core/sorted_unique.hpp"
#include "graphrf/core/timer.hpp"

namespace graphrf {

namespace {
struct NodeRecord {
  std::int64_t new_index, canonical, original_id, n_arcs;
};
struct ArcRecord {
  std::int64_t dst;
  double w;
};
}  // namespace

std::int64_t DistributedGraph::ghost_slot(std::int64_t global) const {
  auto it = std::lower_bound(ghosts.begin(), ghosts.end(), global);
  return (it != ghosts.end() && *it == global) ? it - ghosts.begin() : -1;
}

namespace {

// The columns this rank does not own, ascending, and each remote arc's position among them (in arc order).
SortedUnique remote_columns(const DistributedGraph& g) {
  return sorted_unique_outside(g.col, g.first(), g.n_local(), static_cast<std::uint64_t>(g.n_global()));
}

// Every arc's source (see DistributedGraph::arc_sources) and the ghosts: the distinct columns this rank does
// not own, ascending.
std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>> arc_sources_and_ghosts(const DistributedGraph& g) {
  SortedUnique ghosts = remote_columns(g);
  std::vector<std::int64_t> source(g.col.size());
  size_t next = 0;
  for (size_t k = 0; k < g.col.size(); ++k) {
    const auto c = g.col[k];
    source[k] = g.owns(c) ? c - g.first() : -1 - ghosts.slot[next++];
  }
  return {std::move(source), std::move(ghosts.values)};
}

}  // namespace

std::vector<std::int64_t> DistributedGraph::arc_sources() const { return arc_sources_and_ghosts(*this).first; }

double DistributedGraph::array_bytes() const {
  const auto bytes = [](const auto& v) { return static_cast<double>(v.capacity() * sizeof(v[0])); };
  return bytes(original_id) + bytes(canonical_index) + bytes(row_ptr) + bytes(col) + bytes(weight) +
         bytes(normalized_weight) + bytes(degree) + bytes(ghosts) + bytes(ghost_degree);
}

DistributedGraph::LeavingArcs DistributedGraph::leaving_arc_shares() const {
  if (col.empty()) return {};
  std::int64_t other_rank = 0, other_host = 0;
  for (const std::int64_t target : col) {
    if (owns(target)) continue;
    ++other_rank;
    other_host += !hosts || !hosts->same_host(owner(target));
  }
  const auto arcs = static_cast<double>(col.size());
  return {static_cast<double>(other_rank) / arcs, static_cast<double>(other_host) / arcs};
}

std::int64_t DistributedGraph::nodes_on_other_hosts() const {
  if (!hosts || hosts->size() <= 1) return n_global() - n_local();
  return n_global() - (dist.first(hosts->end_rank(hosts->index())) - dist.first(hosts->first_rank(hosts->index())));
}

namespace {

// Weights whose sums overflow (a degree of inf: 1e308 twice) or whose products underflow (1e-320: d_i d_j = 0,
// so W = A / sqrt(d_i d_j) is inf or NaN; `first_overflow`: this rank's first such row, -1 if none) would make
// every result built on W meaningless: refused by the node of lowest canonical index where it happens, the
// same on every rank. Collective.
void check_weights_finite(const DistributedGraph& g, std::int64_t first_overflow) {
  constexpr auto kNone = std::numeric_limits<std::int64_t>::max();
  std::int64_t bad = kNone;
  for (std::int64_t i = 0; i < g.n_local() && bad == kNone; ++i)
    if (!std::isfinite(g.degree[static_cast<size_t>(i)]) || i == first_overflow) bad = g.canonical_index[static_cast<size_t>(i)];
  const std::int64_t first = g.comm->min(bad);
  if (first == kNone) return;
  std::array<double, 2> node{0, 0};  // its id and degree, from the rank that has it
  const int owner = g.comm->min(bad == first ? g.comm->rank() : g.comm->size());
  if (owner == g.comm->rank())
    for (std::int64_t i = 0; i < g.n_local(); ++i)
      if (g.canonical_index[static_cast<size_t>(i)] == first)
        node = {static_cast<double>(g.original_id[static_cast<size_t>(i)]), g.degree[static_cast<size_t>(i)]};
  std::int64_t id = static_cast<std::int64_t>(node[0]);
  double degree = node[1];
  g.comm->broadcast(id, owner);
  g.comm->broadcast(degree, owner);
  throw InputError(g.report.source + ": node " + (g.report.string_ids ? "row " : "") + std::to_string(id) + ": its weights " +
                       (std::isfinite(degree) ? "are too small: the normalisation D^-1/2 A D^-1/2 overflows (degree " + sci(degree) + ")"
                                              : "sum to infinity (degree overflows)") +
                       "; rescale the weights (they must sum to a finite degree, and degrees must multiply to a normal number)",
                   /*collective=*/true);
}

// Moves every row to the rank of its part, renumbered so that a rank's nodes are consecutive (in canonical order
// within each part). Fills g's distribution, ids and CSR.
void ship_rows(const Communicator& comm, CanonicalGraph graph, const std::vector<int>& part, DistributedGraph& g) {
  const int rank = comm.rank();
  const auto p = static_cast<size_t>(comm.size());
  const auto n_local = static_cast<size_t>(graph.n_local(rank));
  const std::int64_t first = graph.first(rank);

  // New index = start of its part + rank of the node within its part in canonical order.
  std::vector<std::int64_t> here(p, 0);
  for (int q : part) ++here[static_cast<size_t>(q)];
  const auto below = comm.exscan_sum(here);
  const auto sizes = comm.allreduce(here, MPI_SUM);
  std::vector<std::int64_t> offsets(p + 1, 0);
  for (size_t r = 0; r < p; ++r) offsets[r + 1] = offsets[r] + sizes[r];
  std::vector<std::int64_t> new_index(n_local);
  {
    std::vector<std::int64_t> next(p);
    for (size_t r = 0; r < p; ++r) next[r] = offsets[r] + below[r];
    for (size_t i = 0; i < n_local; ++i) new_index[i] = next[static_cast<size_t>(part[i])]++;
  }
  // New indices of remote neighbours, asked once per distinct neighbour. Remote arcs are numbered in arc order,
  // which is the order the rows are shipped in below.
  const auto is_local = [&](std::int64_t c) { return c >= first && c < first + static_cast<std::int64_t>(n_local); };
  const SortedUnique remote =
      sorted_unique_outside(graph.col, first, static_cast<std::int64_t>(n_local), static_cast<std::uint64_t>(graph.dist.total()));
  const std::vector<std::int64_t> remote_new = request_reply<std::int64_t>(
      comm, std::span<const std::int64_t>(remote.values), [&](std::int64_t c) { return graph.dist.owner(c); },
      [&](std::int64_t c) { return new_index[static_cast<size_t>(c - first)]; });
  size_t next_remote_arc = 0;
  auto renumber = [&](std::int64_t c) {
    if (is_local(c)) return new_index[static_cast<size_t>(c - first)];
    return remote_new[static_cast<size_t>(remote.slot[next_remote_arc++])];
  };

  // Ship every row to its new owner; rows keep their canonical neighbour order.
  Counts node_counts(p, 0), arc_counts(p, 0);
  for (size_t i = 0; i < n_local; ++i) {
    ++node_counts[static_cast<size_t>(part[i])];
    arc_counts[static_cast<size_t>(part[i])] += graph.row_ptr[i + 1] - graph.row_ptr[i];
  }
  std::vector<std::int64_t> node_pos(p + 1, 0), arc_pos(p + 1, 0);
  for (size_t r = 0; r < p; ++r) {
    node_pos[r + 1] = node_pos[r] + node_counts[r];
    arc_pos[r + 1] = arc_pos[r] + arc_counts[r];
  }
  std::vector<NodeRecord> node_send(n_local);
  std::vector<ArcRecord> arc_send(graph.col.size());
  for (size_t i = 0; i < n_local; ++i) {
    const auto q = static_cast<size_t>(part[i]);
    const std::int64_t len = graph.row_ptr[i + 1] - graph.row_ptr[i];
    node_send[static_cast<size_t>(node_pos[q]++)] = {new_index[i], first + static_cast<std::int64_t>(i),
                                                     graph.original_id[i], len};
    for (auto k = graph.row_ptr[i]; k < graph.row_ptr[i + 1]; ++k)
      arc_send[static_cast<size_t>(arc_pos[q]++)] = {renumber(graph.col[static_cast<size_t>(k)]),
                                                     graph.weight[static_cast<size_t>(k)]};
  }
  g.report = std::move(graph.report);
  g.names = std::move(graph.names);
  graph = CanonicalGraph{};
  const auto nodes = comm.alltoallv(node_send, node_counts);
  const auto arcs = comm.alltoallv(arc_send, arc_counts);
  g.dist = BlockDistribution(std::move(offsets));

  // Sources hold ascending canonical blocks and new indices follow canonical order within a part, so
  // the nodes arrive already sorted by new index; check it rather than trust it.
  const auto n_mine = static_cast<size_t>(g.n_local());
  if (nodes.size() != n_mine) throw Error("distribute_graph: received " + std::to_string(nodes.size()) + " rows, expected " + std::to_string(n_mine));
  g.original_id.resize(n_mine);
  g.canonical_index.resize(n_mine);
  g.row_ptr.assign(n_mine + 1, 0);
  for (size_t i = 0; i < n_mine; ++i) {
    if (nodes[i].new_index != g.first() + static_cast<std::int64_t>(i)) throw Error("distribute_graph: rows out of order");
    g.original_id[i] = nodes[i].original_id;
    g.canonical_index[i] = nodes[i].canonical;
    g.row_ptr[i + 1] = g.row_ptr[i] + nodes[i].n_arcs;
  }
  g.col.resize(arcs.size());
  g.weight.resize(arcs.size());
  for (size_t k = 0; k < arcs.size(); ++k) {
    g.col[k] = arcs[k].dst;
    g.weight[k] = arcs[k].w;
  }
}

// Parts that are runs in canonical order (`runs`: the new blocks) keep every index: a rank keeps in place the rows
// its new block shares with its canonical block and exchanges only the rest (when a host splits its nodes for
// balance, a few hundred rows at the ends of the blocks). Rows from ranks below arrive ahead of the kept ones and
// rows from ranks above behind them, so the result is in canonical order. ship_rows copied every row through two
// arrays the size of the graph: 240 MB of fresh memory per rank for a 10^6-node random graph on 2 ranks.
void move_boundary_rows(const Communicator& comm, CanonicalGraph graph, const BlockDistribution& runs, DistributedGraph& g) {
  const int rank = comm.rank();
  const auto p = static_cast<size_t>(comm.size());
  const std::int64_t first = graph.first(rank), end = first + graph.n_local(rank);
  const std::int64_t new_first = runs.first(rank), new_end = new_first + runs.count(rank);
  const std::int64_t kept_begin = std::clamp(new_first, first, end), kept_end = std::clamp(new_end, kept_begin, end);

  Counts node_counts(p, 0), arc_counts(p, 0);
  std::vector<NodeRecord> node_send;
  std::vector<ArcRecord> arc_send;
  // Rows below the kept ones go to lower ranks, rows above to higher ones: both runs are in destination order.
  auto send_rows = [&](std::int64_t from, std::int64_t to) {
    for (std::int64_t v = from; v < to; ++v) {
      const auto i = static_cast<size_t>(v - first);
      const auto q = static_cast<size_t>(runs.owner(v));
      const std::int64_t len = graph.row_ptr[i + 1] - graph.row_ptr[i];
      ++node_counts[q];
      arc_counts[q] += len;
      node_send.push_back({v, v, graph.original_id[i], len});
      for (auto k = graph.row_ptr[i]; k < graph.row_ptr[i + 1]; ++k)
        arc_send.push_back({graph.col[static_cast<size_t>(k)], graph.weight[static_cast<size_t>(k)]});
    }
  };
  send_rows(first, kept_begin);
  send_rows(kept_end, end);
  Counts node_recv_counts, arc_recv_counts;
  const auto nodes = comm.alltoallv(node_send, node_counts, &node_recv_counts);
  const auto arcs = comm.alltoallv(arc_send, arc_counts, &arc_recv_counts);
  std::int64_t nodes_below = 0, arcs_below = 0;
  for (int s = 0; s < rank; ++s) {
    nodes_below += node_recv_counts[static_cast<size_t>(s)];
    arcs_below += arc_recv_counts[static_cast<size_t>(s)];
  }

  const auto kept_rows = static_cast<size_t>(kept_end - kept_begin);
  const auto row0 = static_cast<size_t>(kept_begin - first);
  const auto arc0 = graph.row_ptr[row0], arc1 = graph.row_ptr[row0 + kept_rows];
  // The kept rows' arcs stay in their arrays: cut the ends off, then add what arrived on either side.
  auto keep_range = [](auto& values, std::int64_t from, std::int64_t to) {
    values.erase(values.begin() + to, values.end());
    values.erase(values.begin(), values.begin() + from);
  };
  g.col = std::move(graph.col);
  g.weight = std::move(graph.weight);
  keep_range(g.col, arc0, arc1);
  keep_range(g.weight, arc0, arc1);
  const auto below_arcs = std::span<const ArcRecord>(arcs).first(static_cast<size_t>(arcs_below));
  const auto above_arcs = std::span<const ArcRecord>(arcs).subspan(static_cast<size_t>(arcs_below));
  auto dst_of = [](std::span<const ArcRecord> a) {
    std::vector<std::int64_t> out(a.size());
    for (size_t k = 0; k < a.size(); ++k) out[k] = a[k].dst;
    return out;
  };
  auto w_of = [](std::span<const ArcRecord> a) {
    std::vector<double> out(a.size());
    for (size_t k = 0; k < a.size(); ++k) out[k] = a[k].w;
    return out;
  };
  const auto below_dst = dst_of(below_arcs), above_dst = dst_of(above_arcs);
  const auto below_w = w_of(below_arcs), above_w = w_of(above_arcs);
  g.col.insert(g.col.begin(), below_dst.begin(), below_dst.end());
  g.col.insert(g.col.end(), above_dst.begin(), above_dst.end());
  g.weight.insert(g.weight.begin(), below_w.begin(), below_w.end());
  g.weight.insert(g.weight.end(), above_w.begin(), above_w.end());

  const auto n_mine = static_cast<size_t>(runs.count(rank));
  if (nodes.size() + kept_rows != n_mine)
    throw Error("distribute_graph: holding " + std::to_string(nodes.size() + kept_rows) + " rows, expected " + std::to_string(n_mine));
  std::vector<std::int64_t> row_ptr(n_mine + 1, 0);
  std::vector<std::int64_t> original_id;
  original_id.reserve(n_mine);
  size_t row = 0;
  auto add_arrived = [&](size_t from, size_t to) {
    for (size_t k = from; k < to; ++k, ++row) {
      if (nodes[k].new_index != new_first + static_cast<std::int64_t>(row)) throw Error("distribute_graph: rows out of order");
      original_id.push_back(nodes[k].original_id);
      row_ptr[row + 1] = row_ptr[row] + nodes[k].n_arcs;
    }
  };
  add_arrived(0, static_cast<size_t>(nodes_below));
  for (size_t i = 0; i < kept_rows; ++i, ++row) {
    original_id.push_back(graph.original_id[row0 + i]);
    row_ptr[row + 1] = row_ptr[row] + graph.row_ptr[row0 + i + 1] - graph.row_ptr[row0 + i];
  }
  add_arrived(static_cast<size_t>(nodes_below), nodes.size());
  g.report = std::move(graph.report);
  g.names = std::move(graph.names);
  g.dist = runs;
  g.row_ptr = std::move(row_ptr);
  g.original_id = std::move(original_id);
  g.canonical_index.resize(n_mine);
  std::iota(g.canonical_index.begin(), g.canonical_index.end(), new_first);
}

}  // namespace

DistributedGraph distribute_graph(const Communicator& comm, CanonicalGraph graph, const std::vector<int>& part) {
  Timer timer;
  const int rank = comm.rank();
  const auto n_local = static_cast<size_t>(graph.n_local(rank));
  const std::int64_t first = graph.first(rank);

  DistributedGraph g;
  g.comm = &comm;
  g.n_edges_global = graph.n_edges_global;
  // Parts that are runs in canonical order (block partitions, one host's split) keep canonical indices: nothing
  // to renumber, and when every rank keeps its own canonical block the rows are moved rather than shipped.
  const std::optional<BlockDistribution> runs = contiguous_parts(comm, part, comm.size());
  if (runs && runs->offsets() == graph.dist.offsets()) {
    g.report = std::move(graph.report);
    g.names = std::move(graph.names);
    g.dist = graph.dist;
    g.original_id = std::move(graph.original_id);
    g.canonical_index.resize(n_local);
    std::iota(g.canonical_index.begin(), g.canonical_index.end(), first);
    g.row_ptr = std::move(graph.row_ptr);
    g.col = std::move(graph.col);
    g.weight = std::move(graph.weight);
    graph = CanonicalGraph{};
  } else if (runs) {
    move_boundary_rows(comm, std::move(graph), *runs, g);
  } else {
    ship_rows(comm, std::move(graph), part, g);
  }
  const auto n_mine = static_cast<size_t>(g.n_local());

  // Ghosts, their degrees, and the symmetric normalisation (remote arcs find their ghost through the slots, in
  // arc order: no array of every arc's source, 8 bytes an arc, is needed here).
  SortedUnique ghosts = remote_columns(g);
  g.ghosts = std::move(ghosts.values);
  g.ghost_exchange = GhostExchange(comm, g.dist, g.ghosts);
  g.degree.assign(n_mine, 0.0);
  for (size_t i = 0; i < n_mine; ++i)
    for (auto k = g.row_ptr[i]; k < g.row_ptr[i + 1]; ++k) g.degree[i] += g.weight[static_cast<size_t>(k)];
  g.ghost_degree.resize(g.ghosts.size());
  g.ghost_exchange.exchange<double>(g.degree, g.ghost_degree);
  g.normalized_weight.resize(g.col.size());
  std::int64_t first_overflow = -1;  // local row; a directed arc into a node without arcs of its own (d_j = 0) is not one
  size_t next_remote = 0;
  const std::int64_t mine_first = g.first(), mine_end = mine_first + g.n_local();
  for (size_t i = 0; i < n_mine; ++i)
    for (auto k = g.row_ptr[i]; k < g.row_ptr[i + 1]; ++k) {
      const auto c = g.col[static_cast<size_t>(k)];
      const double dj = c >= mine_first && c < mine_end ? g.degree[static_cast<size_t>(c - mine_first)]
                                                        : g.ghost_degree[static_cast<size_t>(ghosts.slot[next_remote++])];
      const double w = g.weight[static_cast<size_t>(k)] / std::sqrt(g.degree[i] * dj);
      g.normalized_weight[static_cast<size_t>(k)] = w;
      if (first_overflow < 0 && dj != 0 && !std::isfinite(w)) first_overflow = static_cast<std::int64_t>(i);
    }
  check_weights_finite(g, first_overflow);
  g.n_arcs_global = comm.sum(static_cast<std::int64_t>(g.col.size()));
  g.report.distribute_seconds = comm.max(timer.seconds());
  return g;
}

bool DistributedGraph::replicates_walks() const {
  if (!replicate_walk_table || comm->size() == 1) return false;
  return !hosts || hosts->count() > 1;
}

double replica_bytes_per_rank(const DistributedGraph& g) { return g.replicates_walks() ? replica_bytes_if_replicated(g) : 0; }

double replica_bytes_if_replicated(const DistributedGraph& g) {
  if (g.comm->size() == 1) return 0;
  const double host_ranks = g.hosts && g.hosts->size() > 1 ? g.hosts->size() : 1;
  // 32 B an arc (walk_arcs.hpp's HopArc), a row pointer and an original id per node.
  return (32.0 * static_cast<double>(g.n_arcs_global) + 16.0 * static_cast<double>(g.n_global())) / host_ranks;
}

void check_replica_fits(const DistributedGraph& g, std::uint64_t memory_limit_option) {
  if (!g.replicates_walks()) return;
  check_memory_fits(*g.comm, g.array_bytes() + replica_bytes_per_rank(g), memory_limit_per_rank(*g.comm, memory_limit_option),
                    "--replicate-graph (every host keeps the whole graph's walk table, here " +
                        format_bytes(replica_bytes_per_rank(g)) + " a rank)");
}

std::string graph_summary(const DistributedGraph& g) {
  return g.report.source + ": " + std::to_string(g.n_global()) + " nodes, " + std::to_string(g.n_edges_global) +
         " edges, partition " + g.partitioner + " on " + std::to_string(g.comm->size()) + " ranks" +
         (g.replicates_walks() ? ", replicated on every host for walks" : "");
}

namespace {

// The part (rank) of every node: METIS and PT-Scotch cut the graph between hosts, and the ranks of a host split
// its nodes for balance only (a cut between ranks that share memory costs nothing). Block and file partitions
// are taken as they are.
std::vector<int> host_fitted_partition(const Communicator& comm, const CanonicalGraph& canonical, const std::string& partition,
                                       const HostTopology& hosts, std::uint64_t memory_limit_option, bool report) {
  const bool cutting = partition == "metis" || partition == "ptscotch";
  if (partition == "metis") check_metis_fits(comm, canonical, hosts.count(), memory_limit_option, report);
  if (partition == "ptscotch") check_ptscotch_fits(comm, canonical, hosts.count(), memory_limit_option, report);
  if (!cutting || hosts.count() == comm.size()) return compute_partition(comm, canonical, partition, comm.size());
  std::vector<int> first_rank;
  for (int h = 0; h <= hosts.count(); ++h) first_rank.push_back(h < hosts.count() ? hosts.first_rank(h) : comm.size());
  if (hosts.count() == 1) {
    phase_note("loading     one host: " + partition + " not called (no cut between ranks that share memory costs a "
                   "message); its ranks split the nodes for balance",
               true);
    return split_within_groups(comm, canonical, std::vector<int>(static_cast<size_t>(canonical.n_local(comm.rank())), 0),
                               first_rank);
  }
  // Hosts of different sizes get work in proportion to their ranks.
  std::vector<double> weights;
  if (hosts.largest_host() * hosts.count() != comm.size())
    for (int h = 0; h < hosts.count(); ++h)
      weights.push_back(static_cast<double>(hosts.end_rank(h) - hosts.first_rank(h)) / comm.size());
  return split_within_groups(comm, canonical, compute_partition(comm, canonical, partition, hosts.count(), weights),
                             first_rank);
}

}  // namespace

DistributedGraph partition_and_distribute(const Communicator& comm, CanonicalGraph canonical, const std::string& partition,
                                          int host_size, bool report_steps, std::uint64_t memory_limit_option) {
  validate_partition_spec(partition);
  auto hosts = std::make_shared<const HostTopology>(comm, host_size);
  if (!hosts->note().empty()) phase_note("hosts       " + hosts->note(), true);
  if (hosts->sharing()) phase_note("hosts       " + hosts->summary() + ", shared graph", true);
  // The partitioner is a library call that reports nothing until it returns: say what it works on.
  phase_note("loading     partitioning " + std::to_string(canonical.dist.total()) + " nodes, " +
                 std::to_string(canonical.n_edges_global) + " edges with " + partition +
                 (partition == "block" ? "" : " (one library call: no progress until it returns)"),
             report_steps);
  Timer timer;
  const auto part = host_fitted_partition(comm, canonical, partition, *hosts, memory_limit_option, report_steps);
  const double partition_seconds = comm.max(timer.seconds());
  phase_note("loading     partitioned in " + fmt(partition_seconds, 2) + " s", report_steps);
  const PhaseStep step("loading     moving rows to their ranks, ghosts and normalised weights", report_steps);
  PartitionQuality quality = partition_quality(comm, canonical, part, comm.size());
  if (hosts->sharing() && hosts->count() == 1) {
    quality.host_edge_cut = 0;  // one host: nothing to count
  } else if (hosts->sharing()) {
    std::vector<int> host_part(part.size());
    for (size_t i = 0; i < part.size(); ++i) host_part[i] = hosts->host_of(part[i]);
    quality.host_edge_cut = partition_quality(comm, canonical, host_part, hosts->count()).edge_cut;
  }
  DistributedGraph g = distribute_graph(comm, std::move(canonical), part);
  g.hosts = std::move(hosts);
  g.report.partition_seconds = partition_seconds;
  g.partitioner = partition;
  g.quality = quality;
  return g;
}

DistributedGraph load_graph(const Communicator& comm, const GraphOptions& options) {
  validate_partition_spec(options.partition);
  ArcInput arcs = read_arcs(comm, options);
  // Steps without a loop to report from say when they start on large graphs (about a second or more each).
  constexpr std::int64_t kSlowArcs = std::int64_t{1} << 22;
  const std::int64_t total_arcs = comm.sum(static_cast<std::int64_t>(arcs.arcs.size()));
  const bool slow = total_arcs >= kSlowArcs;
  CanonicalGraph canonical;
  {
    const PhaseStep step("loading     assembling the canonical graph from " +
                             std::to_string(total_arcs) +
                             " arcs (sorting and routing)",
                         slow);
    canonical = assemble_canonical_graph(comm, std::move(arcs), options.duplicates, options.directed);
  }
  DistributedGraph g = partition_and_distribute(comm, std::move(canonical), options.partition, options.host_size, slow,
                                                options.memory_limit);
  g.replicate_walk_table = options.replicate_graph;
  check_replica_fits(g, options.memory_limit);
  return g;
}

}  // namespace graphrf
