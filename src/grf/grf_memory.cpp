#include "graphrf/grf/grf_memory.hpp"

#include <algorithm>
#include <cmath>

#include "graphrf/mpi/log.hpp"

namespace graphrf {

namespace {

template <class V>
double bytes_of(const V& v) {
  return static_cast<double>(v.capacity() * sizeof(typename V::value_type));
}

constexpr double kWalkerBytes = 40, kDepositBytes = 24;
constexpr double kLengthResolvedEntryBytes = 8 + 4 + 8, kPhiEntryBytes = 8 + 8, kIndptrBytes = 8;

}  // namespace

double expected_hops_per_walk(const WalkOptions& walk) {
  if (walk.fixed_length) return static_cast<double>(walk.max_length);  // every walker makes exactly T hops
  const double keep = 1.0 - walk.p_halt;
  return keep * (1.0 - std::pow(keep, static_cast<double>(walk.max_length))) / walk.p_halt;
}

std::int64_t open_row_limit(const WalkOptions& walk, const WalkLimits& limits) {
  return std::max<std::int64_t>(64, limits.max_walkers_in_flight / walk.walkers);
}

std::int64_t expected_entries(const WalkOptions& walk, std::int64_t n_local) {
  const double visits = static_cast<double>(n_local) * (1.0 + static_cast<double>(walk.walkers) * expected_hops_per_walk(walk));
  return static_cast<std::int64_t>(std::ceil(visits * 1.02)) + 1024;  // room for the spread of a sum of walks
}

GrfMemory estimate_grf_memory(const DistributedGraph& g, const WalkOptions& walk, const WalkLimits& limits, int ensembles,
                              LengthResolvedRows length_resolved) {
  GrfMemory m;
  const double rows = static_cast<double>(g.n_local());
  // The engine's arcs: the graph's, plus at most one self-loop per row under --weights combinatorial.
  const double arcs = static_cast<double>(g.col.size()) + (walk.weights == WeightMode::combinatorial ? rows : 0.0);
  // The graph, plus the walk engine's row pointers and arc table (and cumulative weights).
  m.graph_bytes = bytes_of(g.original_id) + bytes_of(g.canonical_index) + bytes_of(g.row_ptr) + bytes_of(g.col) +
                  bytes_of(g.weight) + bytes_of(g.normalized_weight) + bytes_of(g.degree) + bytes_of(g.ghosts) +
                  bytes_of(g.ghost_degree) + 8 * (rows + 1) + kWalkArcBytes * arcs + (walk.step == StepRule::weighted ? 8 * arcs : 0);
  const double entries = static_cast<double>(expected_entries(walk, g.n_local()));
  const bool keep = length_resolved == LengthResolvedRows::keep;
  m.output_bytes = ensembles * (entries * ((keep ? kLengthResolvedEntryBytes : 0) + kPhiEntryBytes) +
                                rows * kIndptrBytes * (keep ? 2 : 1));
  // Open rows' visits (vectors up to twice their size), the walker queue and per-destination batches of
  // walkers and deposits, each possibly twice (being filled and being sent).
  const double open_rows = static_cast<double>(std::min<std::int64_t>(open_row_limit(walk, limits), std::max<std::int64_t>(g.n_local(), 1)));
  const double ranks = g.comm->size();
  m.in_flight_bytes = 2 * open_rows * static_cast<double>(walk.walkers) * expected_hops_per_walk(walk) * kDepositBytes +
                      static_cast<double>(limits.max_walkers_in_flight) * kWalkerBytes +
                      2 * ranks * (static_cast<double>(limits.walker_batch) * kWalkerBytes +
                                   static_cast<double>(limits.deposit_batch) * kDepositBytes);
  return m;
}

int ensembles(GrfEstimator estimator) { return estimator == GrfEstimator::two_ensembles ? 2 : 1; }

GrfMemory grf_memory_with_output(const GrfMemory& estimate, const GrfRun& run) {
  GrfMemory m = estimate;
  m.output_bytes = 0;
  for (size_t e = 0; e < run.phi.size(); ++e)
    m.output_bytes += static_cast<double>(run.by_length[e].col.size()) * kLengthResolvedEntryBytes +
                      static_cast<double>(run.phi[e].col.size()) * kPhiEntryBytes +
                      static_cast<double>(run.by_length[e].indptr.size() + run.phi[e].indptr.size()) * kIndptrBytes;
  return m;
}

std::string describe_max(const Communicator& comm, const GrfMemory& m) {
  return "graph " + fmt(comm.max(m.graph_bytes) / kMiB, 0) + " + output " + fmt(comm.max(m.output_bytes) / kMiB, 0) +
         " + in flight " + fmt(comm.max(m.in_flight_bytes) / kMiB, 0) + " = " + fmt(comm.max(m.total()) / kMiB, 0) + " MiB";
}

}  // namespace graphrf
