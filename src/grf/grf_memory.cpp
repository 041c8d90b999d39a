#include "graphrf/grf/grf_memory.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "graphrf/grf/grf_row_assembler.hpp"
#include "graphrf/mpi/log.hpp"

namespace graphrf {

namespace {

constexpr double kDepositBytes = 24;
constexpr double kOpenRowVisits = 1 << 19;  // the visits open rows may hold in all (beyond the 64-row minimum)
constexpr double kLengthResolvedEntryBytes = 8 + 4 + 8, kPhiEntryBytes = 8 + 8, kIndptrBytes = 8;

}  // namespace

std::int64_t open_row_limit(const WalkOptions& walk, const WalkLimits& limits) {
  // An open row holds all its visits until it is built: rows of many walkers are opened fewer at a time.
  const double visits_per_row = std::max(1.0, static_cast<double>(walk.walkers) * expected_hops_per_walk(walk));
  const auto by_visits = static_cast<std::int64_t>(kOpenRowVisits / visits_per_row);
  return std::max<std::int64_t>(64, std::min(limits.max_walkers_in_flight / walk.walkers, by_visits));
}

std::int64_t expected_entries(const WalkOptions& walk, std::int64_t n_local) {
  const double visits = static_cast<double>(n_local) * (1.0 + static_cast<double>(walk.walkers) * expected_hops_per_walk(walk));
  return static_cast<std::int64_t>(std::ceil(visits * 1.02)) + 1024;  // room for the spread of a sum of walks
}

RowEntries row_entries_bound(const WalkOptions& walk, std::int64_t n_global) {
  const double visits = 1.0 + static_cast<double>(walk.walkers) * expected_hops_per_walk(walk) * 1.02;  // the spread of a sum of walks
  const double nodes = static_cast<double>(n_global);
  return {std::min(visits, nodes), std::min(visits, nodes * static_cast<double>(walk.max_length + 1))};
}

namespace {

std::int64_t starting_rows(const DistributedGraph& g, const WalkOptions& walk) {
  std::int64_t starts = 0;
  for (std::int64_t i = 0; i < g.n_local(); ++i) starts += starts_walkers(walk, g.canonical_index[static_cast<size_t>(i)]);
  return starts;
}

// Mean + 4 standard errors of entries per row from their count, sum and sum of squares (0 rows: 0).
double upper_mean(double rows, double sum, double squares) {
  if (rows < 1) return 0;
  const double mean = sum / rows, variance = std::max(0.0, squares / rows - mean * mean);
  return mean + 4.0 * std::sqrt(variance / rows);
}

}  // namespace

RowEntries sampled_row_entries(const DistributedGraph& g, const WalkOptions& walk, LengthResolvedRows length_resolved,
                               const Log& log, const WalkArcs* arcs) {
  const RowEntries bound = row_entries_bound(walk, g.n_global());
  if (walk.start_every != 1 || g.n_global() < 8 * kSampledRows) return bound;
  WalkOptions sample = walk;
  sample.start_every = g.n_global() / kSampledRows;
  const std::int64_t starts = starting_rows(g, sample);
  std::vector<bool> starts_here(static_cast<size_t>(g.n_local()));
  for (std::int64_t i = 0; i < g.n_local(); ++i)
    starts_here[static_cast<size_t>(i)] = starts_walkers(sample, g.canonical_index[static_cast<size_t>(i)]);
  WalkLimits limits;
  limits.progress_seconds = 0;
  // f = 1 at every step: no entry cancels, so the count is the most any modulation leaves.
  GrfRowAssembler assembler(g.first(), g.n_local(), walk.walkers, std::vector<double>(static_cast<size_t>(walk.max_length) + 1, 1.0),
                            open_row_limit(walk, limits), static_cast<std::int64_t>(static_cast<double>(starts) * bound.by_length) + g.n_local(),
                            starts_here, length_resolved);
  run_walks(g, sample, log, limits, &assembler, arcs);
  AssembledGrf rows;
  collective_try(*g.comm, [&] { rows = assembler.finish(); });
  const bool keep = length_resolved == LengthResolvedRows::keep;
  std::array<double, 5> local{};  // rows, Phi sum and squares, M_t sum and squares
  for (std::int64_t i = 0; i < g.n_local(); ++i) {
    if (!starts_here[static_cast<size_t>(i)]) continue;
    const auto phi = static_cast<double>(rows.phi.indptr[static_cast<size_t>(i) + 1] - rows.phi.indptr[static_cast<size_t>(i)]);
    const auto by_length = keep ? static_cast<double>(rows.by_length.indptr[static_cast<size_t>(i) + 1] -
                                                      rows.by_length.indptr[static_cast<size_t>(i)])
                                : phi;
    local[0] += 1, local[1] += phi, local[2] += phi * phi, local[3] += by_length, local[4] += by_length * by_length;
  }
  std::array<double, 5> all{};
  for (size_t k = 0; k < local.size(); ++k) all[k] = g.comm->sum(local[k]);
  const auto measured = [&](int at) {  // all ranks' sample, or this rank's own when larger and well sampled
    const double overall = upper_mean(all[0], all[at], all[at + 1]);
    return local[0] >= 16 ? std::max(overall, upper_mean(local[0], local[at], local[at + 1])) : overall;
  };
  return {std::min(bound.phi, measured(1)), std::min(bound.by_length, std::max(measured(1), measured(3)))};
}

std::int64_t output_entries(const DistributedGraph& g, const WalkOptions& walk, const RowEntries& per_row,
                            LengthResolvedRows length_resolved) {
  const auto starts = static_cast<double>(starting_rows(g, walk));
  const double per = length_resolved == LengthResolvedRows::keep ? per_row.by_length : per_row.phi;
  return static_cast<std::int64_t>(std::ceil(starts * per + static_cast<double>(g.n_local()) - starts)) + 1024;
}

GrfMemory estimate_grf_memory(const DistributedGraph& g, const WalkOptions& walk, const WalkLimits& limits, int ensembles,
                              LengthResolvedRows length_resolved) {
  return estimate_grf_memory(g, walk, limits, ensembles, length_resolved, row_entries_bound(walk, g.n_global()));
}

GrfMemory estimate_grf_memory(const DistributedGraph& g, const WalkOptions& walk, const WalkLimits& limits, int ensembles,
                              LengthResolvedRows length_resolved, const RowEntries& per_row) {
  GrfMemory m;
  const double rows = static_cast<double>(g.n_local());
  // The graph and the walk engine's table (this rank's slice of its host's: walk_arcs.hpp).
  m.graph_bytes = g.array_bytes() + walk_table_bytes(g, walk);
  // The output is sized for output_entries() in Phi and M_t alike (reserved, so it counts in full).
  const double entries = static_cast<double>(output_entries(g, walk, per_row, length_resolved));
  const bool keep = length_resolved == LengthResolvedRows::keep;
  const double one_ensemble = entries * ((keep ? kLengthResolvedEntryBytes : 0) + kPhiEntryBytes) + rows * kIndptrBytes * (keep ? 2 : 1);
  // When the run is one host of several ranks, a rank that runs out of start rows builds peers' rows too (up to
  // max_peer_row_share of its own count, sized like its own) and holds them until the ensemble's walks end.
  const bool one_host_of_several = g.hosts && g.hosts->size() > 1 && g.hosts->count() == 1;
  const double peer_share = one_host_of_several ? std::max(0.0, limits.max_peer_row_share) : 0.0;
  m.output_bytes = (ensembles + peer_share) * one_ensemble;
  // Open rows' visits (vectors up to twice their size), the walker queue and per-destination batches of
  // walkers and deposits, each possibly twice (being filled and being sent).
  const double open_rows = static_cast<double>(std::min<std::int64_t>(open_row_limit(walk, limits), std::max<std::int64_t>(g.n_local(), 1)));
  const double ranks = g.comm->size();
  m.in_flight_bytes = 2 * open_rows * static_cast<double>(walk.walkers) * expected_hops_per_walk(walk) * kDepositBytes +
                      walkers_in_flight_bytes(g, limits) + 2 * ranks * static_cast<double>(limits.deposit_batch) * kDepositBytes;
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

}  // namespace graphrf
