#pragma once
// One `couple` run on a loaded graph: sigma learned by optimal transport (sigma_learning.hpp) from about
// `start_nodes` start nodes spread evenly over the canonical order, said as log lines and kept as a Report;
// write_sigma_file writes it for --coupling sigma --sigma FILE.
#include <cstdint>
#include <string>

#include "graphrf/core/report.hpp"
#include "graphrf/grf/sigma_learning.hpp"

namespace graphrf {

struct CoupleRunOptions {
  SigmaLearningOptions learning;  // start_every is set from start_nodes
  std::int64_t start_nodes = 64;  // about this many (all nodes if the graph is smaller)
};

struct CoupleResult {
  SigmaLearningResult learned;
  // order, start_nodes, sigma (1-based, comma-separated), cost_sigma, cost_identity, cost_random,
  // cost_random_mean, cost_seconds, solve_seconds.
  Report report;
};

// Collective.
CoupleResult run_couple(const DistributedGraph& g, const CoupleRunOptions& options, const Log& log);

// sigma 1-based and space-separated, as --sigma reads it.
std::string permutation_text(const std::vector<int>& sigma);

}  // namespace graphrf
