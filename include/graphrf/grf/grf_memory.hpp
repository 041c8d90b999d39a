#pragma once
// Memory per rank of GRF construction with streaming assembly: this rank's share of the graph (with the
// walk engine's arc table), its share of the output (/grf and /grf_by_length rows of every ensemble),
// (M_t only when kept), and the fixed in-flight cap (visits of open rows, walker and deposit batches). The estimate is printed
// before walking; after walking the same terms with the real output size are compared with the measured
// peak. The general memory check of a run builds on these figures.
#include <cstdint>
#include <string>

#include "graphrf/graph/distributed_graph.hpp"
#include "graphrf/grf/grf_pipeline.hpp"
#include "graphrf/walks/walk_engine.hpp"

namespace graphrf {

constexpr double kMiB = 1024.0 * 1024.0;

struct GrfMemory {
  double graph_bytes = 0, output_bytes = 0, in_flight_bytes = 0;
  double total() const { return graph_bytes + output_bytes + in_flight_bytes; }
};

// Mean hops, hence visits, of one walk: sum_{t=1..T} (1-p)^t.
double expected_hops_per_walk(const WalkOptions& walk);
// How many start rows may be open at once: as many as the in-flight walker cap covers, at least 64.
std::int64_t open_row_limit(const WalkOptions& walk, const WalkLimits& limits);
// An upper bound on one ensemble's expected entries for this rank's rows: one per visit, plus M_0.
std::int64_t expected_entries(const WalkOptions& walk, std::int64_t n_local);

// Before walking, from the graph, the options and the expected number of visits (an upper bound on the
// output: visits to the same node at the same step share an entry).
GrfMemory estimate_grf_memory(const DistributedGraph& g, const WalkOptions& walk, const WalkLimits& limits, int ensembles,
                              LengthResolvedRows length_resolved);
int ensembles(GrfEstimator estimator);
// The estimate with the output this rank actually holds after the run.
GrfMemory grf_memory_with_output(const GrfMemory& estimate, const GrfRun& run);
// "graph A + output B + in flight C = T MiB", each the largest over ranks. Collective.
std::string describe_max(const Communicator& comm, const GrfMemory& m);

}  // namespace graphrf
