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
//
// When ranks share a host (host_topology.hpp), the table covers the host's whole node range and lives once per
// host in shared memory: each rank writes its own rows, and an arc's target row is linked wherever on the host
// it lies, so a walker crosses between the host's ranks without leaving its lane. Building it is then
// collective over the host.
//
// With the graph replicated (GraphOptions::replicate_graph) and several hosts, every host's table covers the whole
// graph: each rank writes and links its own rows at their place in it, and one rank per host exchanges its host's
// rows with the other hosts. Walkers then never leave their host; building is collective over all ranks.
#include <cstdint>
#include <vector>

#include "graphrf/core/huge_pages.hpp"
#include "graphrf/graph/distributed_graph.hpp"
#include "graphrf/mpi/shared_array.hpp"
#include "graphrf/walks/walk_options.hpp"

namespace graphrf {

struct HopArc {
  std::int64_t target;  // global index
  double factor;        // W_vu / P(step v->u), without the 1/(1 - p) of not halting
  std::int64_t begin;   // the target's arcs when it lies on this rank's host: begin .. begin + degree
  std::int64_t degree;  // -1 for another host's node (the walker leaves)
};

// Bytes per arc of the table.
constexpr int kWalkArcBytes = sizeof(HopArc);

// Bytes of this rank's part of the table for walks on `g` under `o`: its rows' arcs (the graph's, and a self-loop
// per row under --weights combinatorial), their cumulative weights for weighted steps and row pointers, and, when
// the run is one host of several ranks, the rows' original ids. On a host of several ranks it is this rank's
// slice of the host's shared table, so the host's table counts once over its ranks. A replicated graph's table
// counts whole on every host, shared out over the host's ranks.
double walk_table_bytes(const DistributedGraph& g, const WalkOptions& o);

class WalkArcs {
 public:
  // Throws Error for --weights combinatorial without d_max. Collective over the host when it has several ranks.
  WalkArcs(const DistributedGraph& g, const WalkOptions& o);
  WalkArcs(const WalkArcs&) = delete;
  WalkArcs& operator=(const WalkArcs&) = delete;

  // Whether walks on `g` under `o` may use this table (same graph, weights, step rule, scale, d_max).
  bool serves(const DistributedGraph& g, const WalkOptions& o) const;
  // Whether the table is the whole graph's on a run of several hosts (walkers never leave their host).
  bool replicated() const { return replicated_; }

  // The host's nodes: global indices first() .. end() (this rank's alone when it is its own host, all of them when
  // the graph is replicated).
  std::int64_t first() const { return first_; }
  std::int64_t end() const { return end_; }
  const HopArc* arcs() const { return arc_data_; }
  const std::int64_t* row_ptr() const { return row_data_; }  // per host node (index - first()), into arcs()
  const double* cumulative() const { return cumulative_data_; }  // weighted steps only
  // The host's nodes' original ids (index - first()): the keys of the random draws of walks a rank starts at a
  // peer's node (start_row_claims.hpp, row_requests.hpp). Null on a host of several ranks when the run has other
  // hosts and the graph is not replicated (no rank then walks a peer's start nodes).
  const std::int64_t* original_ids() const { return id_data_; }
  double build_seconds() const { return build_seconds_; }

 private:
  void build_own(const DistributedGraph& g, const WalkOptions& o);
  void build_shared(const DistributedGraph& g, const WalkOptions& o);
  void build_replicated(const DistributedGraph& g, const WalkOptions& o);

  const DistributedGraph* graph_;
  WeightMode weights_;
  StepRule step_;
  double scale_, max_degree_;
  std::int64_t first_ = 0, end_ = 0;
  // A rank that is its own host: plain (huge-page) arrays.
  HugeVector<HopArc> arcs_;
  HugeVector<std::int64_t> row_ptr_;
  std::vector<std::int64_t> ids_;  // a replicated graph's, every node's
  std::vector<double> cumulative_;
  // A host of several ranks: the host's table in shared windows, each rank's rows in its slice.
  SharedArray<HopArc> shared_arcs_;
  SharedArray<std::int64_t> shared_row_ptr_;
  SharedArray<double> shared_cumulative_;
  SharedArray<std::int64_t> shared_ids_;
  const HopArc* arc_data_ = nullptr;
  const std::int64_t* row_data_ = nullptr;
  const double* cumulative_data_ = nullptr;
  const std::int64_t* id_data_ = nullptr;
  double build_seconds_ = 0;
  bool replicated_ = false;
};

}  // namespace graphrf
