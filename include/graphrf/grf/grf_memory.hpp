#pragma once
// Memory per rank of GRF construction with streaming assembly: this rank's share of the graph (with the walk
// engine's arc table), its share of the output (/grf and /grf_by_length rows of every ensemble, M_t only when
// kept, and on a run that is one host of several ranks the peers' rows it may build: WalkLimits::
// max_peer_row_share), and the fixed in-flight cap (visits of open rows, walker and deposit batches). The
// estimate is printed before walking; after walking the same terms with the real output size are compared with
// the measured peak. The general memory check of a run builds on these figures.
#include <array>
#include <cstdint>
#include <string>

#include "graphrf/core/memory_size.hpp"
#include "graphrf/graph/distributed_graph.hpp"
#include "graphrf/grf/grf_pipeline.hpp"
#include "graphrf/walks/walk_arcs.hpp"
#include "graphrf/walks/walk_engine.hpp"

namespace graphrf {

struct GrfMemory {
  double graph_bytes = 0, output_bytes = 0, in_flight_bytes = 0;
  double total() const { return graph_bytes + output_bytes + in_flight_bytes; }
  std::array<MemoryPart, 3> parts() const {
    return {{{"graph", graph_bytes}, {"output", output_bytes}, {"in flight", in_flight_bytes}}};
  }
};

// How many start rows may be open at once: as many as the in-flight walker cap covers and as hold about
// 2^19 expected visits in all, at least 64 (more than the engine's lanes).
std::int64_t open_row_limit(const WalkOptions& walk, const WalkLimits& limits);
// An upper bound on one ensemble's expected entries for this rank's rows: one per visit, plus M_0.
std::int64_t expected_entries(const WalkOptions& walk, std::int64_t n_local);

// Entries of one start row: of Phi (its distinct columns) and of M_t (its distinct (column, step) pairs).
struct RowEntries {
  double phi = 0, by_length = 0;
};
// Without walking: one per expected visit, capped by the nodes (Phi) and by nodes x steps (M_t). Walks that
// revisit a small neighbourhood (many walkers, a large graph) hold far fewer.
RowEntries row_entries_bound(const WalkOptions& walk, std::int64_t n_global);
// Measured: the rows of every k-th node (about kSampledRows of them) are assembled from the very walks the run
// will make (draws are keyed by start node), and the mean entries per row plus four standard errors of it
// (this rank's own sampled rows when they are more than the mean over all), capped by row_entries_bound, is
// returned. The bound itself on graphs under 8 x kSampledRows nodes or when walks start at some nodes only
// (start_every). Collective; costs about kSampledRows / N of the run.
constexpr std::int64_t kSampledRows = 512;
RowEntries sampled_row_entries(const DistributedGraph& g, const WalkOptions& walk, LengthResolvedRows length_resolved,
                               const Log& log, const WalkArcs* arcs = nullptr);
// The entries this rank's rows hold at most, by `per_row` (rows where no walker starts hold one): what the
// output is sized for (WalkLimits::output_entries).
std::int64_t output_entries(const DistributedGraph& g, const WalkOptions& walk, const RowEntries& per_row,
                            LengthResolvedRows length_resolved);

// Before walking, from the graph, the options and the entries per row (default: row_entries_bound).
GrfMemory estimate_grf_memory(const DistributedGraph& g, const WalkOptions& walk, const WalkLimits& limits, int ensembles,
                              LengthResolvedRows length_resolved);
GrfMemory estimate_grf_memory(const DistributedGraph& g, const WalkOptions& walk, const WalkLimits& limits, int ensembles,
                              LengthResolvedRows length_resolved, const RowEntries& per_row);
int ensembles(GrfEstimator estimator);
// The estimate with the output this rank actually holds after the run.
GrfMemory grf_memory_with_output(const GrfMemory& estimate, const GrfRun& run);

}  // namespace graphrf
