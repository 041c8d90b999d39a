#include "graphrf/graph/graph_statistics.hpp"

#include <algorithm>
#include <numeric>

namespace graphrf {

std::vector<std::int64_t> connected_component_labels(const DistributedGraph& g) {
  const auto n = static_cast<size_t>(g.n_local());
  const std::int64_t first = g.first();
  std::vector<std::int64_t> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](std::int64_t x) {
    while (parent[static_cast<size_t>(x)] != x) {
      parent[static_cast<size_t>(x)] = parent[static_cast<size_t>(parent[static_cast<size_t>(x)])];
      x = parent[static_cast<size_t>(x)];
    }
    return x;
  };
  for (size_t i = 0; i < n; ++i)
    for (auto k = g.row_ptr[i]; k < g.row_ptr[i + 1]; ++k) {
      const auto c = g.col[static_cast<size_t>(k)];
      if (!g.owns(c)) continue;
      const auto a = find(static_cast<std::int64_t>(i)), b = find(c - first);
      if (a != b) parent[static_cast<size_t>(std::max(a, b))] = std::min(a, b);
    }
  // Label of a local root: smallest canonical index in its local piece.
  std::vector<std::int64_t> root_label(n, INT64_MAX);
  for (size_t i = 0; i < n; ++i) {
    auto& l = root_label[static_cast<size_t>(find(static_cast<std::int64_t>(i)))];
    l = std::min(l, g.canonical_index[i]);
  }
  std::vector<std::int64_t> label(n), ghost_label(g.ghosts.size());
  const std::vector<std::int64_t> source = g.arc_sources();
  for (size_t i = 0; i < n; ++i) label[i] = root_label[static_cast<size_t>(find(static_cast<std::int64_t>(i)))];
  for (;;) {
    g.ghost_exchange.exchange<std::int64_t>(label, ghost_label, 1, g.hosts);
    int changed = 0;
    for (size_t i = 0; i < n; ++i)
      for (auto k = g.row_ptr[i]; k < g.row_ptr[i + 1]; ++k) {
        const auto s = source[static_cast<size_t>(k)];
        if (s >= 0) continue;
        auto& l = root_label[static_cast<size_t>(find(static_cast<std::int64_t>(i)))];
        const auto other = ghost_label[static_cast<size_t>(-1 - s)];
        if (other < l) {
          l = other;
          changed = 1;
        }
      }
    for (size_t i = 0; i < n; ++i) label[i] = root_label[static_cast<size_t>(find(static_cast<std::int64_t>(i)))];
    if (g.comm->max(changed) == 0) break;
  }
  return label;
}

GraphStatistics compute_statistics(const DistributedGraph& g) {
  const Communicator& comm = *g.comm;
  GraphStatistics s;
  s.nodes = g.n_global();
  s.edges = g.n_edges_global;
  const auto n = static_cast<size_t>(g.n_local());
  double dmin = n ? 1e300 : 1e300, dmax = 0, dsum = 0;
  std::int64_t isolated = 0, cut_arcs = 0;
  for (size_t i = 0; i < n; ++i) {
    const auto d = static_cast<double>(g.row_ptr[i + 1] - g.row_ptr[i]);
    dmin = std::min(dmin, d);
    dmax = std::max(dmax, d);
    dsum += d;
    isolated += d == 0;
  }
  for (auto c : g.col) cut_arcs += !g.owns(c);
  s.degree = {comm.min(dmin), comm.sum(dsum) / static_cast<double>(s.nodes), comm.max(dmax)};
  s.isolated = comm.sum(isolated);
  s.edge_cut = comm.sum(cut_arcs) / 2;
  const auto labels = connected_component_labels(g);
  std::int64_t roots = 0;
  for (size_t i = 0; i < n; ++i) roots += labels[i] == g.canonical_index[i];
  s.components = comm.sum(roots);
  s.owned_nodes = min_avg_max(comm, static_cast<double>(n));
  s.owned_arcs = min_avg_max(comm, static_cast<double>(g.col.size()));
  s.ghosts = min_avg_max(comm, static_cast<double>(g.ghosts.size()));
  return s;
}

double max_weighted_degree(const DistributedGraph& g) {
  const double local = g.degree.empty() ? 0.0 : *std::max_element(g.degree.begin(), g.degree.end());
  return g.comm->max(local);
}

}  // namespace graphrf
