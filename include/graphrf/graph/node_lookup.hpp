#pragma once
// Nodes named in user inputs (observations, test lists, Q/K/V rows) found in a graph read with string ids:
// a name given in another file means the node of that name, never a row index. The graph's names are in
// canonical (byte) order, one consecutive block per rank, so each name is looked up by the one rank whose
// block could hold it.
#include <cstdint>
#include <string>
#include <vector>

#include "graphrf/graph/distributed_graph.hpp"
#include "graphrf/io/node_names.hpp"

namespace graphrf {

// Whether ids in other inputs name nodes by their names (graphs read with string ids).
inline bool nodes_are_named(const DistributedGraph& g) { return g.report.string_ids; }

// Canonical index of each of this rank's `queries` (-1 for a name that is no node of the graph). Ranks may
// pass different queries, or none. Collective.
std::vector<std::int64_t> find_named_nodes(const DistributedGraph& g, const NodeNames& queries);

}  // namespace graphrf
