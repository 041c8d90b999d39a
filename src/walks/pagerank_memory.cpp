#include "graphrf/walks/pagerank_memory.hpp"

#include <cmath>

#include "graphrf/walks/walk_arcs.hpp"

namespace graphrf {

PageRankMemory estimate_pagerank_memory(const DistributedGraph& g, const WalkOptions& walk, const WalkLimits& limits,
                                        bool reference) {
  PageRankMemory m;
  const auto rows = static_cast<double>(g.n_local()), nodes = static_cast<double>(g.n_global());
  const auto arcs = static_cast<double>(g.col.size()), ranks = static_cast<double>(g.comm->size());
  m.graph_bytes = g.array_bytes();
  // End points are counted for every node of the rank's host (a walker ends wherever on the host it stops), every
  // node when the graph is replicated (twice: the counts and their sum over the ranks).
  const auto host_nodes = g.replicates_walks() ? 2 * nodes : static_cast<double>(g.n_global() - g.nodes_on_other_hosts());
  // A dangling node's walker jumps to a uniform node: each rank holds the global index of a block of N / P
  // canonical indices, built from an all-to-all of (canonical, global) pairs (16 per own node sent, 16 per block
  // node received).
  const double block = std::ceil(nodes / ranks);
  const double teleport = 8 * block + 16 * block + 16 * rows;
  m.walk_bytes = walk_table_bytes(g, walk) + walkers_in_flight_bytes(g, limits) + teleport + 8 * host_nodes;
  // The power iteration: each arc's slot and (target, value) pair, the pairs received and one more copy of them
  // in the exchange (its message part, or the host's shared window), and three vectors per node.
  if (reference) m.reference_bytes = (8 + 3 * 16) * arcs + 3 * 8 * rows;
  // The estimate, and its canonical-order copy when written.
  m.rank_bytes = 8 * rows + 16 * rows;
  return m;
}

}  // namespace graphrf
