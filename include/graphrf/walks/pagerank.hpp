#pragma once
// PageRank with damping 1 - p on a (possibly directed) graph as networkx.pagerank defines it: P = D_out^-1 A,
// A the arc weights (StepRule::weighted, networkx's weight='weight') or the arc pattern (uniform, weight=None),
// a self-loop an out-arc to its own node, and dangling nodes (no out-arcs) teleporting uniformly:
//   pi = (1 - p) P'^T pi + p/N,   P' = P with dangling rows replaced by 1/N.
// Monte Carlo (Fogaras et al. 2005, "Towards scaling fully personalized PageRank"; Reid et al. 2025b,
// "Variance-reducing couplings for random features", App. E): pi_j = (1/N) sum_i Pr[a walk from i that halts
// with probability p before each hop ends at j], estimated from n walkers per node with any coupling.
#include <cstdint>
#include <vector>

#include "graphrf/graph/distributed_graph.hpp"
#include "graphrf/mpi/log.hpp"
#include "graphrf/walks/walk_engine.hpp"

namespace graphrf {

struct PageRankExact {
  std::vector<double> rank;  // per owned node
  int iterations = 0;
  double error_bound = 0;    // (1-p)/p * ||pi_k - pi_{k-1}||_1 >= ||pi_k - pi||_1
};

// Distributed power iteration until the L1 error bound is below `tolerance`. Collective.
PageRankExact pagerank_exact(const DistributedGraph& g, double p_halt, StepRule step = StepRule::uniform,
                             double tolerance = 1e-12, int max_iterations = 100000);

struct PageRankEstimate {
  std::vector<double> rank;  // per owned node: walks ending there / (N n)
  WalkStatistics walks;
};

// Walks with `walk` (coupling, seed, walkers, p_halt, max_length, step: uniform over out-arcs or in proportion
// to their weights; dangling nodes teleport). Collective.
PageRankEstimate pagerank_by_walks(const DistributedGraph& g, WalkOptions walk, const Log& log,
                                   WalkLimits limits = {});

// The smallest max_length whose truncation bias (1-p)^L is below 1e-12.
std::int64_t pagerank_default_max_length(double p_halt);

// Collective: whether any arc weight differs from 1 (then weighted and uniform steps define different PageRanks).
bool has_arc_weights(const DistributedGraph& g);

// Agreement of an estimate with the exact vector (collective): L1 error, max relative error, and how many of
// the 100 highest-ranked nodes (ties by canonical index) the two share.
struct PageRankComparison {
  double l1_error = 0, max_relative_error = 0;
  std::int64_t top_overlap = 0, top_size = 0;
};
PageRankComparison compare_pagerank(const DistributedGraph& g, const std::vector<double>& estimate,
                                    const std::vector<double>& exact, std::int64_t top = 100);

}  // namespace graphrf
