#pragma once
// What a `pagerank` run holds per rank, estimated before it walks (printed, and checked against --memory-limit):
// the graph, the larger of its two phases (the walks: the engine's table, walkers in flight, the teleport table of
// a block of N / P nodes, the end-point counts; under --reference, the power iteration's arc buffers, allocated
// once the walks' arrays are freed) and the rank vectors.
#include <array>

#include "graphrf/core/memory_size.hpp"
#include "graphrf/graph/distributed_graph.hpp"
#include "graphrf/walks/walk_engine.hpp"

namespace graphrf {

struct PageRankMemory {
  double graph_bytes = 0, walk_bytes = 0, reference_bytes = 0, rank_bytes = 0;
  double phase_bytes() const { return walk_bytes > reference_bytes ? walk_bytes : reference_bytes; }
  double total() const { return graph_bytes + phase_bytes() + rank_bytes; }
  std::array<MemoryPart, 3> parts() const {
    return {{{"graph", graph_bytes},
             {walk_bytes >= reference_bytes ? "walks" : "reference", phase_bytes()},
             {"ranks", rank_bytes}}};
  }
};

// `walk`: the options as walked (pagerank_run.cpp decides the step rule); `reference`: the power iteration too.
PageRankMemory estimate_pagerank_memory(const DistributedGraph& g, const WalkOptions& walk, const WalkLimits& limits,
                                        bool reference);

}  // namespace graphrf
