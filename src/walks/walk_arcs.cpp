#include "graphrf/walks/walk_arcs.hpp"

#include <algorithm>

#include "graphrf/core/error.hpp"
#include "graphrf/core/timer.hpp"
#include "graphrf/walks/load_factors.hpp"

namespace graphrf {

namespace {

std::int64_t row_length(const DistributedGraph& g, const WalkOptions& o, size_t i) {
  return (g.row_ptr[i + 1] - g.row_ptr[i]) + (combinatorial_self_loop(o, g.degree[i]) > 0.0);
}

// This rank's rows in order, each arc handed to emit(arc, inclusive prefix sum of its row's step weights) with
// its target not linked yet (degree -1).
template <class Emit>
void write_rows(const DistributedGraph& g, const WalkOptions& o, Emit&& emit) {
  std::vector<WalkArc> row;
  for (size_t i = 0; i < static_cast<size_t>(g.n_local()); ++i) {
    row.clear();
    const auto begin = static_cast<size_t>(g.row_ptr[i]);
    append_walk_row(o, g.first() + static_cast<std::int64_t>(i), g.col.data() + begin, g.normalized_weight.data() + begin,
                    g.weight.data() + begin, g.row_ptr[i + 1] - g.row_ptr[i], g.degree[i], 1.0, row);
    double sum = 0;
    for (const WalkArc& a : row) emit(HopArc{a.target, a.factor, 0, -1}, sum += a.step_weight);
  }
}

// The targets' rows for arcs whose target lies in first .. end (row_ptr indexed from first), in a pass of its
// own that looks them up a few dozen arcs ahead of use (on a graph without locality every lookup misses the
// cache; fused into the writing pass the lookups ran slower).
void link_targets(HopArc* arcs, size_t count, const std::int64_t* row_ptr, std::int64_t first, std::int64_t end) {
  const auto inside = [&](std::int64_t global) { return global >= first && global < end; };
  constexpr size_t kAhead = 32;
  for (size_t k = 0; k < count; ++k) {
    if (k + kAhead < count && inside(arcs[k + kAhead].target))
      __builtin_prefetch(&row_ptr[static_cast<size_t>(arcs[k + kAhead].target - first)]);
    HopArc& a = arcs[k];
    if (!inside(a.target)) continue;
    const auto t = static_cast<size_t>(a.target - first);
    a.begin = row_ptr[t];
    a.degree = row_ptr[t + 1] - a.begin;
  }
}

}  // namespace

WalkArcs::WalkArcs(const DistributedGraph& g, const WalkOptions& o)
    : graph_(&g), weights_(o.weights), step_(o.step), scale_(o.scale), max_degree_(o.max_degree) {
  if (o.weights == WeightMode::combinatorial && !(o.max_degree > 0.0))
    throw Error("run_walks: --weights combinatorial needs d_max (bind_combinatorial_laplacian)");
  Timer timer;
  if (g.replicates_walks()) build_replicated(g, o);
  else if (g.hosts && g.hosts->size() > 1) build_shared(g, o);
  else build_own(g, o);
  build_seconds_ = timer.seconds();
}

void WalkArcs::build_own(const DistributedGraph& g, const WalkOptions& o) {
  const auto n = static_cast<size_t>(g.n_local());
  first_ = g.first();
  end_ = first_ + g.n_local();
  row_ptr_.assign(n + 1, 0);
  for (size_t i = 0; i < n; ++i) row_ptr_[i + 1] = row_ptr_[i] + row_length(g, o, i);
  // Reserved and appended rather than resized: the table is written once, not zeroed first (320 MB on a
  // 10-arc-per-node graph of 10^6 nodes).
  arcs_.reserve(static_cast<size_t>(row_ptr_[n]));
  const bool weighted = o.step == StepRule::weighted;
  if (weighted) cumulative_.reserve(arcs_.capacity());
  write_rows(g, o, [&](const HopArc& a, double cumulative) {
    arcs_.push_back(a);
    if (weighted) cumulative_.push_back(cumulative);
  });
  link_targets(arcs_.data(), arcs_.size(), row_ptr_.data(), first_, end_);
  arc_data_ = arcs_.data();
  row_data_ = row_ptr_.data();
  cumulative_data_ = cumulative_.data();
  id_data_ = g.original_id.data();
}

// Every rank of the host walks on the shared table. Private copies of it (an earlier version took them when the
// hops to come would repay the copy) walked no faster once the window's array started on a cache line
// (shared_array.cpp: unaligned, every other 32-byte arc straddled two lines, and a hop missed on the line its
// prefetch had not fetched), and each cost a whole table per rank.
void WalkArcs::build_shared(const DistributedGraph& g, const WalkOptions& o) {
  const HostTopology& hosts = *g.hosts;
  const Communicator& host = hosts.host();
  const auto n = static_cast<size_t>(g.n_local());
  first_ = g.dist.first(hosts.first_rank(hosts.index()));
  end_ = first_;
  for (int r = hosts.first_rank(hosts.index()); r < hosts.end_rank(hosts.index()); ++r) end_ += g.dist.count(r);
  std::int64_t n_arcs = 0;
  for (size_t i = 0; i < n; ++i) n_arcs += row_length(g, o, i);
  const bool weighted = o.step == StepRule::weighted;
  shared_arcs_ = SharedArray<HopArc>(host, n_arcs);
  shared_cumulative_ = SharedArray<double>(host, weighted ? n_arcs : 0);
  // One row pointer per node of the host; the host's last rank adds the end of the last row.
  const bool last = host.rank() == host.size() - 1;
  shared_row_ptr_ = SharedArray<std::int64_t>(host, g.n_local() + (last ? 1 : 0));
  // The ids serve only walks a rank starts at a peer's node, which happen only when the run is one host.
  if (hosts.count() == 1) {
    shared_ids_ = SharedArray<std::int64_t>(host, g.n_local());
    std::copy(g.original_id.begin(), g.original_id.end(), shared_ids_.mine());
  }
  std::int64_t* row_ptr = shared_row_ptr_.mine();
  std::int64_t next = shared_arcs_.first(host.rank());
  for (size_t i = 0; i < n; ++i) {
    row_ptr[i] = next;
    next += row_length(g, o, i);
  }
  if (last) row_ptr[n] = next;
  HopArc* arcs = shared_arcs_.mine();
  double* cumulative = shared_cumulative_.mine();
  size_t k = 0;
  write_rows(g, o, [&](const HopArc& a, double sum) {
    if (weighted) cumulative[k] = sum;
    arcs[k++] = a;
  });
  shared_row_ptr_.synchronize();  // every rank's row pointers are written
  link_targets(arcs, k, shared_row_ptr_.data(), first_, end_);
  shared_arcs_.synchronize();  // and every rank's arcs linked
  arc_data_ = shared_arcs_.data();
  row_data_ = shared_row_ptr_.data();
  cumulative_data_ = shared_cumulative_.data();
  id_data_ = hosts.count() == 1 ? shared_ids_.data() : nullptr;
}

// Each host's table holds the whole graph. Rank r writes and links its rows at their place (row pointers first,
// from every rank's row lengths), then the first rank of each host sends its host's rows to the other hosts'
// first ranks (a broadcast per host), which write them into their host's table. A host of several ranks keeps the
// table in shared windows, each rank holding an equal slice of its memory.
void WalkArcs::build_replicated(const DistributedGraph& g, const WalkOptions& o) {
  replicated_ = true;
  const Communicator& world = *g.comm;
  const bool shared = g.hosts && g.hosts->size() > 1;
  const int host_rank = shared ? g.hosts->host().rank() : 0;
  const int host_ranks = shared ? g.hosts->size() : 1;
  const std::int64_t n = g.n_global();
  first_ = 0;
  end_ = n;
  const auto n_mine = static_cast<size_t>(g.n_local());
  std::int64_t own_arcs = 0;
  for (size_t i = 0; i < n_mine; ++i) own_arcs += row_length(g, o, i);
  const std::int64_t all_arcs = world.sum(own_arcs);
  const bool weighted = o.step == StepRule::weighted;
  // The first ranks of the hosts, in host order (hosts are runs of consecutive ranks, so of global indices).
  const Communicator leaders = world.split(host_rank, world.rank());
  const bool leader = host_rank == 0;
  // An equal slice of a host table's memory on each of the host's ranks.
  const auto slice = [&](std::int64_t count) {
    return count / host_ranks + (host_rank == host_ranks - 1 ? count % host_ranks : 0);
  };
  std::int64_t* row_ptr = nullptr;
  HopArc* arcs = nullptr;
  double* cumulative = nullptr;
  std::int64_t* ids = nullptr;  // every node's original id: the keys of walks a rank starts for another (row_requests.hpp)
  if (shared) {
    shared_row_ptr_ = SharedArray<std::int64_t>(g.hosts->host(), slice(n + 1));
    shared_arcs_ = SharedArray<HopArc>(g.hosts->host(), slice(all_arcs));
    shared_cumulative_ = SharedArray<double>(g.hosts->host(), weighted ? slice(all_arcs) : 0);
    shared_ids_ = SharedArray<std::int64_t>(g.hosts->host(), slice(n));
    row_ptr = shared_row_ptr_.data();
    arcs = shared_arcs_.data();
    cumulative = shared_cumulative_.data();
    ids = shared_ids_.data();
  } else {
    row_ptr_.assign(static_cast<size_t>(n) + 1, 0);
    arcs_.resize(static_cast<size_t>(all_arcs));
    if (weighted) cumulative_.resize(static_cast<size_t>(all_arcs));
    ids_.resize(static_cast<size_t>(n));
    row_ptr = row_ptr_.data();
    arcs = arcs_.data();
    cumulative = cumulative_.data();
    ids = ids_.data();
  }
  const auto sync = [&] {
    if (!shared) return;
    shared_row_ptr_.synchronize();
    shared_arcs_.synchronize();
    shared_cumulative_.synchronize();
    shared_ids_.synchronize();
  };
  // Blocks of the leaders' exchanges: host h's nodes (global indices) node_begin[h] .. node_begin[h + 1].
  // (Hosts differ in size: np 3 as hosts of 2 + 1.)
  std::vector<std::int64_t> node_begin{0};
  for (int h = 0; h < (g.hosts ? g.hosts->count() : world.size()); ++h) {
    const int last = g.hosts ? g.hosts->end_rank(h) - 1 : h;
    node_begin.push_back(g.dist.first(last) + g.dist.count(last));
  }
  const auto blocks = [&](auto bytes_of_hosts_range) {
    Counts bytes;
    for (size_t h = 0; h + 1 < node_begin.size(); ++h) bytes.push_back(bytes_of_hosts_range(node_begin[h], node_begin[h + 1]));
    return bytes;
  };

  // Row pointers: every row's length at its place, exchanged, then summed.
  if (leader) row_ptr[0] = 0;
  for (size_t i = 0; i < n_mine; ++i) row_ptr[static_cast<size_t>(g.first()) + i + 1] = row_length(g, o, i);
  std::copy(g.original_id.begin(), g.original_id.end(), ids + g.first());
  sync();
  if (leader) {
    const Counts node_bytes = blocks([](std::int64_t b, std::int64_t e) { return 8 * (e - b); });
    leaders.allgather_blocks_in_place(row_ptr + 1, node_bytes);
    leaders.allgather_blocks_in_place(ids, node_bytes);
    for (size_t v = 0; v < static_cast<size_t>(n); ++v) row_ptr[v + 1] += row_ptr[v];
  }
  sync();
  // This rank's rows, linked to their targets' rows anywhere in the graph.
  const auto at = static_cast<size_t>(row_ptr[g.first()]);
  size_t k = at;
  write_rows(g, o, [&](const HopArc& a, double sum) {
    if (weighted) cumulative[k] = sum;
    arcs[k++] = a;
  });
  link_targets(arcs + at, k - at, row_ptr, 0, n);
  sync();
  if (leader) {
    const auto arc_bytes = [&](std::int64_t bytes_per_arc) {
      return blocks([&](std::int64_t b, std::int64_t e) { return bytes_per_arc * (row_ptr[e] - row_ptr[b]); });
    };
    leaders.allgather_blocks_in_place(arcs, arc_bytes(kWalkArcBytes));
    if (weighted) leaders.allgather_blocks_in_place(cumulative, arc_bytes(8));
  }
  sync();
  arc_data_ = arcs;
  row_data_ = row_ptr;
  cumulative_data_ = cumulative;
  id_data_ = ids;
}

double walk_table_bytes(const DistributedGraph& g, const WalkOptions& o) {
  if (g.replicates_walks()) {
    // The replica loading checked (arcs, row pointers, ids), and what these options add: a self-loop per row under
    // --weights combinatorial, cumulative weights for weighted steps, the last row pointer.
    const auto nodes = static_cast<double>(g.n_global());
    const double self_loops = o.weights == WeightMode::combinatorial ? nodes : 0.0;
    const double arcs = static_cast<double>(g.n_arcs_global) + self_loops;
    const double host_ranks = g.hosts && g.hosts->size() > 1 ? g.hosts->size() : 1;
    return replica_bytes_per_rank(g) +
           (kWalkArcBytes * self_loops + (o.step == StepRule::weighted ? 8 * arcs : 0) + 8) / host_ranks;
  }
  const auto rows = static_cast<double>(g.n_local());
  const double arcs = static_cast<double>(g.col.size()) + (o.weights == WeightMode::combinatorial ? rows : 0.0);
  const bool shared_ids = g.hosts && g.hosts->size() > 1 && g.hosts->count() == 1;
  return kWalkArcBytes * arcs + (o.step == StepRule::weighted ? 8 * arcs : 0) + 8 * (rows + 1) + (shared_ids ? 8 * rows : 0);
}

bool WalkArcs::serves(const DistributedGraph& g, const WalkOptions& o) const {
  return &g == graph_ && o.weights == weights_ && o.step == step_ && o.scale == scale_ && o.max_degree == max_degree_;
}

}  // namespace graphrf
