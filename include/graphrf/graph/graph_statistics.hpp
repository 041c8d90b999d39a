#pragma once
// Whole-graph figures for `graphrf info`: degrees, isolated nodes, connected components, and per-rank
// min/avg/max of owned nodes, arcs and ghosts.
#include <cstdint>

#include "graphrf/graph/distributed_graph.hpp"
#include "graphrf/mpi/run_summary.hpp"

namespace graphrf {

struct GraphStatistics {
  std::int64_t nodes = 0, edges = 0, isolated = 0, components = 0, edge_cut = 0;
  MinAvgMax degree;                        // neighbour counts over nodes
  MinAvgMax owned_nodes, owned_arcs, ghosts;  // over ranks
};

// Connected components by label propagation: union-find inside each rank, then the minimum label
// crosses partition boundaries through the ghost exchange until no label changes (at most the diameter
// of the partition graph rounds). Returns the component label (smallest canonical index) of every owned node.
std::vector<std::int64_t> connected_component_labels(const DistributedGraph& g);

GraphStatistics compute_statistics(const DistributedGraph& g);

// The largest weighted degree over all ranks. Rank-invariant: each d_i is its row's sum in canonical order.
// Collective.
double max_weighted_degree(const DistributedGraph& g);

}  // namespace graphrf
