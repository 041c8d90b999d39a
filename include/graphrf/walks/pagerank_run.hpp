#pragma once
// One `pagerank` run on a loaded graph: the step rule the graph allows, PageRank from the end points of halting
// walks (pagerank.hpp), with `reference` the exact PageRank by power iteration and the errors, said as log lines
// and kept as a Report; write_pagerank_result (pagerank_output.hpp) writes it.
#include <cstdint>

#include "graphrf/core/report.hpp"
#include "graphrf/graph/distributed_graph.hpp"
#include "graphrf/mpi/log.hpp"
#include "graphrf/walks/pagerank.hpp"

namespace graphrf {

struct PageRankRunOptions {
  WalkOptions walk;                    // walkers, p_halt, max_length, seed, coupling
  StepRule step = StepRule::weighted;  // weighted steps are taken only on a graph with arc weights
  bool reference = false;              // also the exact PageRank and the errors of the estimate
  std::uint64_t memory_limit = 0;      // --memory-limit per rank (0: the node's share; memory_limit.hpp)
};

struct PageRankResult {
  WalkOptions walk;  // as walked (its step rule decided by the graph)
  PageRankEstimate estimate;
  PageRankExact exact;            // with the reference only
  PageRankComparison comparison;  // with the reference only
  bool reference = false;
  double walk_phase_seconds = 0, reference_seconds = 0;  // wall clock of the two phases (rank 0)
  // nodes, walkers, walks, hops, walk_seconds; with the reference l1_error, max_relative_error, top_overlap,
  // reference_iterations; then memory_estimate_mib and peak_mib.
  Report report;
};

// InputError when a repelling coupling meets arc weights, or when the estimated memory exceeds the limit (before
// the walks). Collective.
PageRankResult run_pagerank(const DistributedGraph& g, const PageRankRunOptions& options, const Log& log);

}  // namespace graphrf
