#include "graphrf/walks/walk_arcs.hpp"

#include <algorithm>
#include <cmath>

#include "graphrf/core/error.hpp"
#include "graphrf/core/memory_size.hpp"
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

// The share of this rank's arcs whose target row lies on the host more than 2 MiB of table away from the arc's
// own row: the hops that miss the TLB on 4 KiB pages (near zero on a mesh in canonical order, one on an expander).
// row_ptr: this rank's rows (n + 1 entries, host-table positions).
double far_arc_share(const HopArc* arcs, size_t count, const std::int64_t* row_ptr, size_t n) {
  constexpr std::int64_t kFarArcs = (std::int64_t{1} << 21) / static_cast<std::int64_t>(sizeof(HopArc));
  std::int64_t far = 0;
  const std::int64_t base = n > 0 ? row_ptr[0] : 0;
  for (size_t i = 0; i < n; ++i)
    for (auto k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
      const HopArc& a = arcs[static_cast<size_t>(k - base)];
      far += a.degree >= 0 && std::llabs(a.begin - row_ptr[i]) > kFarArcs;
    }
  return count > 0 ? static_cast<double>(far) / static_cast<double>(count) : 0.0;
}

// Hops this rank's walkers make in one pass of `o`.
double expected_hops(const WalkOptions& o, std::int64_t n_local) {
  return static_cast<double>(n_local) / static_cast<double>(std::max<std::int64_t>(1, o.start_every)) *
         static_cast<double>(o.walkers) * expected_hops_per_walk(o);
}

}  // namespace

WalkArcs::WalkArcs(const DistributedGraph& g, const WalkOptions& o, double passes)
    : graph_(&g), weights_(o.weights), step_(o.step), scale_(o.scale), max_degree_(o.max_degree) {
  if (o.weights == WeightMode::combinatorial && !(o.max_degree > 0.0))
    throw Error("run_walks: --weights combinatorial needs d_max (bind_combinatorial_laplacian)");
  Timer timer;
  if (g.hosts && g.hosts->size() > 1) build_shared(g, o, passes);
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
}

void WalkArcs::build_shared(const DistributedGraph& g, const WalkOptions& o, double passes) {
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
  if (take_private_copies(hosts, far_arc_share(arcs, k, row_ptr, n),
                          expected_hops(o, g.n_local()) * passes)) {
    // Collective: every rank of the host copies, then the shared window goes.
    const std::int64_t total_arcs = shared_arcs_.first(host.size());
    const std::int64_t total_rows = shared_row_ptr_.first(host.size());
    arcs_.assign(shared_arcs_.data(), shared_arcs_.data() + total_arcs);
    row_ptr_.assign(shared_row_ptr_.data(), shared_row_ptr_.data() + total_rows);
    if (weighted) cumulative_.assign(shared_cumulative_.data(), shared_cumulative_.data() + total_arcs);
    shared_arcs_.synchronize();  // nobody frees the windows while another rank still copies
    shared_arcs_ = {};
    shared_row_ptr_ = {};
    shared_cumulative_ = {};
    private_copy_ = true;
    private_copy_extra_bytes_ = static_cast<double>(total_arcs - static_cast<std::int64_t>(k)) *
                                    static_cast<double>(sizeof(HopArc) + (weighted ? sizeof(double) : 0)) +
                                static_cast<double>(total_rows - static_cast<std::int64_t>(n)) * sizeof(std::int64_t);
    arc_data_ = arcs_.data();
    row_data_ = row_ptr_.data();
    cumulative_data_ = cumulative_.data();
  }
}

// A hop reads one arc at random. Walks on a private copy of the host's table ran much faster than on the shared
// window on the machine of tests/bench/README.md, whatever the window's pages: random:1000000:10 at np 2 on one
// host, 33M hops/s on the window in 4 KiB pages, 150-167M on copies (np 1: 82-85M); 33-45M on the window in 2 MiB
// pages (shared_array.cpp), 83-111M on copies the same day (why is not known: a loop making the same prefetched
// random reads ran as fast on shared as on private 2 MiB pages). So every rank may walk on a private copy of the
// host's table; the shared window still built it once, without messages. A copy costs its first touch and the copy
// itself, and saves most on hops that jump far in the table, a little on the others (a grid's hops stay near their
// row), so it is taken when the walks to come save more than it costs:
//   expected hops per rank x (far share x kFarHopSavingNs + near share x kNearHopSavingNs)
//       >  table bytes x kCopyNsPerByte,
// and all copies fit in a quarter of the memory available. Constants measured at np 2 on one host of that machine
// with the window in 4 KiB pages: random:1000000:10 (far share 1.0), `grf --walkers 10`, 5M hops per rank,
// walked in 0.40 s on the shared table and 0.20 s on copies (39 ns saved per hop), whose making took 0.55 s for
// 328 MB (1.7 ns per byte, most of it first touch); grid:1000x1000 (far share 0), `bench-walks`: 7.5 instead of
// 10.5 ns per hop with one walker per node, 6.0 instead of 6.3 with ten (about 2 ns on average over its phases).
// Agreed by the whole host.
bool WalkArcs::take_private_copies(const HostTopology& hosts, double far_share, double hops) const {
  constexpr double kFarHopSavingNs = 39.0, kNearHopSavingNs = 2.0, kCopyNsPerByte = 1.7;
  const Communicator& host = hosts.host();
  const auto table_bytes = static_cast<double>(shared_arcs_.first(host.size())) * sizeof(HopArc) +
                           static_cast<double>(shared_row_ptr_.first(host.size())) * sizeof(std::int64_t) +
                           static_cast<double>(shared_cumulative_.first(host.size())) * sizeof(double);
  const double host_far_share = host.sum(far_share * hops) / std::max(1.0, host.sum(hops));
  const double host_hops = host.sum(hops) / host.size();
  const bool big = table_bytes >= (1 << 22);
  const bool affordable = table_bytes * host.size() <= 0.25 * static_cast<double>(available_memory_bytes());
  const double saving_per_hop_ns = host_far_share * kFarHopSavingNs + (1 - host_far_share) * kNearHopSavingNs;
  const bool pays = host_hops * saving_per_hop_ns > table_bytes * kCopyNsPerByte;
  return host.min(big && affordable && pays ? 1 : 0) == 1;
}

bool WalkArcs::serves(const DistributedGraph& g, const WalkOptions& o) const {
  return &g == graph_ && o.weights == weights_ && o.step == step_ && o.scale == scale_ && o.max_degree == max_degree_;
}

}  // namespace graphrf
