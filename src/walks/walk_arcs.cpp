#include "graphrf/walks/walk_arcs.hpp"

#include "graphrf/core/error.hpp"
#include "graphrf/core/timer.hpp"
#include "graphrf/walks/load_factors.hpp"

namespace graphrf {

WalkArcs::WalkArcs(const DistributedGraph& g, const WalkOptions& o)
    : graph_(&g), weights_(o.weights), step_(o.step), scale_(o.scale), max_degree_(o.max_degree) {
  if (o.weights == WeightMode::combinatorial && !(o.max_degree > 0.0))
    throw Error("run_walks: --weights combinatorial needs d_max (bind_combinatorial_laplacian)");
  Timer timer;
  const auto n = static_cast<size_t>(g.n_local());
  const std::int64_t first = g.first(), last = first + g.n_local();
  const auto is_local = [&](std::int64_t global) { return global >= first && global < last; };
  row_ptr_.assign(n + 1, 0);
  for (size_t i = 0; i < n; ++i)
    row_ptr_[i + 1] = row_ptr_[i] + (g.row_ptr[i + 1] - g.row_ptr[i]) + (combinatorial_self_loop(o, g.degree[i]) > 0.0);
  // Reserved and appended rather than resized: the table is written once, not zeroed first (320 MB on a
  // 10-arc-per-node graph of 10^6 nodes).
  arcs_.reserve(static_cast<size_t>(row_ptr_[n]));
  if (o.step == StepRule::weighted) cumulative_.reserve(arcs_.capacity());
  std::vector<WalkArc> row;
  for (size_t i = 0; i < n; ++i) {
    row.clear();
    const auto begin = static_cast<size_t>(g.row_ptr[i]);
    append_walk_row(o, first + static_cast<std::int64_t>(i), g.col.data() + begin, g.normalized_weight.data() + begin,
                    g.weight.data() + begin, g.row_ptr[i + 1] - g.row_ptr[i], g.degree[i], 1.0, row);
    double sum = 0;
    for (const WalkArc& a : row) {
      arcs_.push_back({a.target, a.factor, 0, -1});
      if (o.step == StepRule::weighted) cumulative_.push_back(sum += a.step_weight);
    }
  }
  // The targets' rows, in a second pass that looks them up a few dozen arcs ahead of use (on a graph without
  // locality every lookup misses the cache; fused into the first pass the lookups ran slower).
  constexpr size_t kAhead = 32;
  for (size_t k = 0; k < arcs_.size(); ++k) {
    if (k + kAhead < arcs_.size() && is_local(arcs_[k + kAhead].target))
      __builtin_prefetch(&row_ptr_[static_cast<size_t>(arcs_[k + kAhead].target - first)]);
    HopArc& a = arcs_[k];
    if (!is_local(a.target)) continue;
    const auto t = static_cast<size_t>(a.target - first);
    a.begin = row_ptr_[t];
    a.degree = row_ptr_[t + 1] - a.begin;
  }
  build_seconds_ = timer.seconds();
}

bool WalkArcs::serves(const DistributedGraph& g, const WalkOptions& o) const {
  return &g == graph_ && o.weights == weights_ && o.step == step_ && o.scale == scale_ && o.max_degree == max_degree_;
}

}  // namespace graphrf
