#include "graphrf/grf/grf_run.hpp"

#include <algorithm>

#include "graphrf/core/memory_size.hpp"
#include "graphrf/grf/grf_memory.hpp"
#include "graphrf/mpi/memory_limit.hpp"
#include "graphrf/mpi/run_summary.hpp"
#include "graphrf/walks/walk_arcs.hpp"

namespace graphrf {

namespace {

// A crossing costs several local hops (tests/bench/README.md: about 90 ns in the walk phase and 370 ns with its
// deposits in GRF construction, against 25 and 50 ns for a local hop), so from a tenth of hops crossing the
// messages add a third to three quarters of the walking time: then the replica is worth its memory.
constexpr double kCrossingShareWorthReplicating = 0.1;

void hint_replication(const Log& log, const WalkStatistics& s, const DistributedGraph& g) {
  const double share = static_cast<double>(s.cross_rank_hops) / std::max<double>(1.0, static_cast<double>(s.hops));
  if (share < kCrossingShareWorthReplicating || g.replicates_walks()) return;
  log.info("hint        " + fmt(100.0 * share, 1) + "% of hops crossed hosts: with --replicate-graph every host keeps the "
           "whole graph's walk table (" + format_bytes(replica_bytes_if_replicated(g)) +
           " a rank, in place of its part) and no walk leaves its host; the files stay the same");
}

}  // namespace

void report_grf(const Log& log, const GrfRun& run, const NnzSummary& nnz, const WalkOptions& walk, const DistributedGraph& g) {
  const std::int64_t n_nodes = g.n_global();
  const auto& s = run.walks[0];
  double walk_seconds = 0;
  for (const auto& w : run.walks) walk_seconds += w.walk_seconds;
  log.info("walks       " + std::to_string(s.walkers) + " walks (" + std::to_string(walk.walkers) + " walkers per node), " + std::to_string(s.hops) + " hops (" +
           fmt(100.0 * static_cast<double>(s.cross_rank_hops) / std::max<double>(1.0, static_cast<double>(s.hops)), 1) +
           "% crossed hosts), " + std::to_string(s.dead_ends) + " stopped at dead ends, " + std::to_string(s.truncated) +
           " truncated at max-length" +
           (s.rows_walked_by_peers > 0
                ? ", " + std::to_string(s.rows_walked_by_peers) + " start nodes walked by another rank for balance"
                : ""));
  hint_replication(log, s, g);
  if (walk.fixed_length) {
    log.info("truncation  --fixed-length " + std::to_string(walk.max_length) + ": the estimate is of sum_{t<=T} f_t W^t by design; "
             "the rest of the series is at most " + sci(run.truncation_bias_bound) + " in the 2-norm");
  } else if (s.truncated > 0) {
    const double share = static_cast<double>(s.truncated) / std::max(1.0, static_cast<double>(s.walkers));
    const std::string line = fmt(100.0 * share, 2) + "% of walks reached --max-length " + std::to_string(walk.max_length) +
                             ": the series beyond it is dropped, a bias of at most " + sci(run.truncation_bias_bound) +
                             " in the 2-norm (sum over k > max-length of the dropped |coefficient_k| rho(W)^k)";
    if (run.truncation_bias_bound > 1e-3) log.warn(line + "; raise --max-length or --p-halt to shrink it");
    else log.info("truncation  " + line);
  }
  // Lemma 3.3 bounds a row's nonzeros by 1 + n b; a row cannot have more than N.
  const double bound = std::min({sparsity_bound(walk.walkers, walk.halt_probability(), 0.01),
                                 1.0 + static_cast<double>(walk.walkers * walk.max_length), static_cast<double>(n_nodes)});
  log.info("grf         nnz per row min/mean/max " + std::to_string(nnz.min) + " / " + fmt(nnz.mean, 1) + " / " +
           std::to_string(nnz.max) + " (Lemma 3.3 bound min(N, 1 + n*b) = " + fmt(bound, 1) +
           " with probability 0.99 per node)");
  log.info("rate        walk " + fmt(walk_seconds) + " s (" + fmt(static_cast<double>(s.hops) * static_cast<double>(run.walks.size()) / walk_seconds / 1e6, 2) +
           "M hops/s), assemble " + fmt(run.assemble_seconds) + " s");
}

GrfResult run_grf(const DistributedGraph& g, const GrfRunOptions& options, const Log& log) {
  const Communicator& comm = *g.comm;
  const WalkOptions& walk = options.walk;
  log.info("kernel      " + describe(options.kernel) + ", estimator " + estimator_name(options.estimator));

  // Refused before walking when the walks cannot fit (two-ensemble runs walk twice).
  // M_t is held only when /grf_by_length is written.
  const LengthResolvedRows length_resolved = options.by_length ? LengthResolvedRows::keep : LengthResolvedRows::drop;
  // Entries per row measured on a sample of rows (their own walks), so that walks revisiting a small
  // neighbourhood are not charged one entry per visit; the output is sized for the same count.
  // The walk table is built once for the sample and the run (on a host of several ranks it is a collective
  // build in shared memory: walk_arcs.cpp).
  const WalkArcs arcs(g, walk);
  const RowEntries per_row = sampled_row_entries(g, walk, length_resolved, log, &arcs);
  WalkLimits limits;
  limits.output_entries = output_entries(g, walk, per_row, length_resolved);
  GrfMemory estimate = estimate_grf_memory(g, walk, limits, ensembles(options.estimator), length_resolved, per_row);
  log.info("memory      estimate per rank (max): " + describe_memory_max(comm, estimate.parts(), 0) +
           " (output: entries per row measured on a sample of rows)");
  // The dense reference runs on rank 0 after the walks, next to the GRF rows: counted with them.
  const double n = static_cast<double>(g.n_global());
  const double reference_bytes = options.dense_reference_matrices * 8.0 * n * n;
  if (reference_bytes > 0)
    log.info("memory      dense reference on rank 0: " + fmt(reference_bytes / kMiB, 1) + " MiB more (" +
             fmt(options.dense_reference_matrices, 0) + " matrices of " + std::to_string(g.n_global()) + " x " +
             std::to_string(g.n_global()) + " doubles)");
  check_memory_fits(comm, comm.max(estimate.total() + (comm.is_root() ? reference_bytes : 0.0)),
                    memory_limit_per_rank(comm, options.memory_limit),
                    "walking (" + std::to_string(walk.walkers) + " walkers per node, " +
                        (walk.fixed_length ? "exactly " + std::to_string(walk.max_length) + " hops" : "p_halt " + fmt(walk.p_halt)) + ")" +
                        (reference_bytes > 0 ? " and the dense reference on rank 0" : ""));

  GrfResult result;
  result.run = compute_grf(g, options.kernel, walk, options.estimator, log, limits, length_resolved, &arcs);
  const GrfRun& run = result.run;
  result.nnz = nnz_per_row(comm, run.phi[0]);
  report_grf(log, run, result.nnz, walk, g);
  // Measured peak against the same terms with the output actually held (the target: within 1.5x). Both count the
  // host's shared walk table once per host (the table is alive here).
  const GrfMemory held = grf_memory_with_output(estimate, run);
  const double peak_mib = comm.max(own_peak_memory_mib()), bound_mib = comm.max(held.total()) / kMiB;
  log.info("memory      peak per rank (max) " + fmt(peak_mib, 0) + " MiB = " + fmt(peak_mib / bound_mib, 2) + " x (" +
           describe_memory_max(comm, held.parts(), 0) + ")");

  result.report.count("nodes", g.n_global())
      .count("walks", run.walks[0].walkers)
      .count("walkers_per_node", walk.walkers)
      .count("hops", run.walks[0].hops)
      .number("nnz_mean", result.nnz.mean, 3, {}, {{"/grf", "nnz_per_row_mean"}})
      .count("nnz_max", result.nnz.max, {}, {{"/grf", "nnz_per_row_max"}})
      .number("walk_seconds", run.walks[0].walk_seconds, 4)
      .number("assemble_seconds", run.assemble_seconds, 4)
      .number("memory_estimate_mib", comm.max(estimate.total()) / kMiB, 1)
      .number("memory_bound_mib", bound_mib, 1)
      .number("peak_mib", peak_mib, 1)
      .number("peak_vs_bound", peak_mib / bound_mib, 3);
  return result;
}

}  // namespace graphrf
