#pragma once
// A graph from edge arrays held in memory (the Python package's Graph.from_edges): the same cleaning as a
// file read by load_graph (symmetrised unless directed, repeated edges merged by the duplicate policy, self-loops
// dropped unless kept), with node ids 0 .. num_nodes - 1 (isolated nodes kept), then partitioned and distributed.
#include <cstdint>
#include <span>
#include <string>

#include "graphrf/graph/distributed_graph.hpp"

namespace graphrf {

struct EdgeArrays {
  std::span<const std::int64_t> src, dst;  // this rank's share of the edges
  std::span<const double> weights;         // empty: every weight 1; else finite and > 0, one per edge
  std::int64_t num_nodes = -1;             // -1: one more than the largest id any rank gives
  DuplicatePolicy duplicates = DuplicatePolicy::max;
  bool keep_self_loops = false;
  bool directed = false;                   // keep arcs as given (row u holds u's out-arcs) instead of symmetrising
  std::string source = "edges";            // names the input in errors and the load report
};

// InputError (collective) for arrays of different lengths, ids outside 0 .. num_nodes - 1, weights that are not
// finite and > 0, and a graph without edges. Collective.
DistributedGraph graph_from_edges(const Communicator& comm, const EdgeArrays& edges, const std::string& partition = "block",
                                  int host_size = 0);

}  // namespace graphrf
