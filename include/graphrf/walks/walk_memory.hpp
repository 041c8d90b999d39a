#pragma once
// The memory one rank needs for its share of a walk run, estimated before walking (printed by the commands
// and checked against --memory-limit), so that a run that cannot fit is refused before any work.
#include "graphrf/graph/distributed_graph.hpp"
#include "graphrf/walks/walk_options.hpp"

namespace graphrf {

// Bytes on this rank: its CSR rows (24 bytes per arc, 16 per node for the walk engine), and for the walks
// starting at its nodes 24 bytes per deposit plus 24 per length-resolved GRF entry (at most one per deposit).
// A walk makes sum_{t=0..L} (1-p)^t = (1 - (1-p)^(L+1)) / p deposits on average (L = max_length).
double estimate_walk_bytes(const DistributedGraph& g, const WalkOptions& options);

}  // namespace graphrf
