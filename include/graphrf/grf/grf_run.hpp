#pragma once
// One `grf` run on a loaded graph: the memory check before walking (entries per row measured on a sample of
// rows), the walks and the GRF rows (compute_grf), what they did (walks, truncation, nnz per row, rates, memory
// against the measured peak) as log lines, and the run's figures as a Report. The output is written by
// write_grf_result (grf_output.hpp); a --reference check runs above this module (reference/grf_reference.hpp).
#include <cstdint>

#include "graphrf/core/report.hpp"
#include "graphrf/graph/distributed_graph.hpp"
#include "graphrf/grf/grf_pipeline.hpp"
#include "graphrf/mpi/log.hpp"

namespace graphrf {

struct GrfRunOptions {
  KernelSpec kernel;
  WalkOptions walk;
  GrfEstimator estimator = GrfEstimator::symmetric;
  bool by_length = false;          // also keep M_t for every walk length (/grf_by_length)
  std::uint64_t memory_limit = 0;  // bytes per rank; 0: the node's available memory divided among its ranks
  // N x N double matrices rank 0 adds after the walks for a dense reference (0: none): said and counted in the
  // memory check before walking.
  double dense_reference_matrices = 0;
};

struct GrfResult {
  GrfRun run;
  NnzSummary nnz;
  // nodes, walks, walkers_per_node, hops, nnz_mean, nnz_max, walk_seconds, assemble_seconds,
  // memory_estimate_mib, memory_bound_mib, peak_mib, peak_vs_bound.
  Report report;
};

// Refused (InputError naming --memory-limit) before walking when the walks, the output and the dense reference
// cannot fit. Collective.
GrfResult run_grf(const DistributedGraph& g, const GrfRunOptions& options, const Log& log);

// The log lines of a finished GRF run (walks, truncation, nnz per row against Lemma 3.3, rates; a hint to
// replicate the walk table when many hops crossed hosts); also said by attention for its GRF mask.
void report_grf(const Log& log, const GrfRun& run, const NnzSummary& nnz, const WalkOptions& walk, const DistributedGraph& g);

}  // namespace graphrf
