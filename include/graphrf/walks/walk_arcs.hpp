#pragma once
// The rows a walker steps through, laid out for the walk engine: one 32-byte entry per arc holding its target,
// its load factor and the target's own row, so that a hop reads one cache line (the row pointers are needed
// only where a walker arrives from elsewhere). Rows are append_walk_row's: the graph's arcs in canonical
// order and, under --weights combinatorial, the self-loop last; weighted steps also get the inclusive prefix
// sums of the step weights.
//
// The factor leaves out halting: it is W_vu / P(step v->u), and the engine applies (1/(1 - p))^t to a load
// when it deposits it after t hops (halting_compensation). So one table serves every walk run on its graph with the same weights, step rule, scale and d_max
// (ensembles, heads, halting probabilities, walker counts, couplings), and is built once per graph: at
// 32 bytes per arc, writing it costs about as much as walking a short-walk GRF (10M arcs: 0.2 s).
#include <cstdint>
#include <vector>

#include "graphrf/core/huge_pages.hpp"
#include "graphrf/graph/distributed_graph.hpp"
#include "graphrf/walks/walk_options.hpp"

namespace graphrf {

struct HopArc {
  std::int64_t target;  // global index
  double factor;        // W_vu / P(step v->u), without the 1/(1 - p) of not halting
  std::int64_t begin;   // the target's arcs when this rank owns it: begin .. begin + degree
  std::int64_t degree;  // -1 for another rank's node (the walker leaves)
};

// Bytes per arc of the table.
constexpr int kWalkArcBytes = sizeof(HopArc);

class WalkArcs {
 public:
  // Throws Error for --weights combinatorial without d_max.
  WalkArcs(const DistributedGraph& g, const WalkOptions& o);

  // Whether walks on `g` under `o` may use this table (same graph, weights, step rule, scale, d_max).
  bool serves(const DistributedGraph& g, const WalkOptions& o) const;

  const HugeVector<HopArc>& arcs() const { return arcs_; }
  const HugeVector<std::int64_t>& row_ptr() const { return row_ptr_; }  // per owned node, into arcs()
  const std::vector<double>& cumulative() const { return cumulative_; } // weighted steps only
  double build_seconds() const { return build_seconds_; }

 private:
  const DistributedGraph* graph_;
  WeightMode weights_;
  StepRule step_;
  double scale_, max_degree_;
  HugeVector<HopArc> arcs_;
  HugeVector<std::int64_t> row_ptr_;
  std::vector<double> cumulative_;
  double build_seconds_ = 0;
};

}  // namespace graphrf
