#include "graphrf/walks/pagerank_run.hpp"

#include <cstdio>

#include "graphrf/core/error.hpp"
#include "graphrf/core/timer.hpp"
#include "graphrf/mpi/memory_limit.hpp"
#include "graphrf/mpi/run_summary.hpp"
#include "graphrf/walks/pagerank_memory.hpp"

namespace graphrf {

PageRankResult run_pagerank(const DistributedGraph& g, const PageRankRunOptions& options, const Log& log) {
  const Communicator& comm = *g.comm;
  Timer phase;
  // What the loader changed decides which PageRank this is (networkx reads the file as given).
  const auto adjustments = g.report.adjustments(g.n_edges_global);
  if (adjustments.empty()) log.info("loader      no adjustments");
  for (const auto& a : adjustments) log.info("loader      " + a);
  PageRankResult r;
  r.walk = options.walk;
  WalkOptions& walk = r.walk;
  // Weighted and uniform steps are the same walk on a graph whose weights are all 1: take the uniform one.
  const bool weighted = options.step == StepRule::weighted && has_arc_weights(g);
  if (weighted) walk.step = StepRule::weighted;
  collective_try(comm, [&] {
    if (weighted && is_repelling(walk.coupling))
      throw InputError("walk.coupling " + std::string(coupling_name(walk.coupling)) + ": repelling walkers spread over neighbours "
                       "uniformly, but the graph has arc weights; use walk.step uniform (weights ignored) or a coupling without repelling");
  });
  log.info("pagerank    damping " + fmt(1 - walk.p_halt, 3) + ", " + std::to_string(walk.walkers) + " walkers per node, coupling " +
           coupling_name(walk.coupling) + ", max-length " + std::to_string(walk.max_length) + ", P = D_out^-1 A on " +
           (weighted ? "the arc weights" : "the arc pattern") + (g.report.directed ? " (directed)" : " (symmetrised)"));
  const PageRankMemory estimate = estimate_pagerank_memory(g, walk, WalkLimits{}, options.reference);
  const double need = announce_memory_estimate(
      comm, log, estimate.parts(),
      options.reference ? "the walks or the power iteration's arc buffers, the larger" : "the walks",
      options.memory_limit, "pagerank (" + std::to_string(walk.walkers) + " walkers per node)");
  r.estimate = pagerank_by_walks(g, walk, log);
  const WalkStatistics& s = r.estimate.walks;
  r.walk_phase_seconds = phase.seconds();
  phase.reset();
  log.info("walks       " + std::to_string(s.walkers) + " walks (" + std::to_string(walk.walkers) + " walkers per node), " + std::to_string(s.hops) + " hops (" +
           std::to_string(s.teleports) + " teleports from dangling nodes), " + std::to_string(s.truncated) +
           " truncated at max-length, " + fmt(s.walk_seconds, 3) + " s");
  r.report.count("nodes", g.n_global())
      .count("walkers", walk.walkers)
      .count("walks", s.walkers)
      .count("hops", s.hops)
      .number("walk_seconds", s.walk_seconds, 4);

  r.reference = options.reference;
  if (r.reference) {
    Timer timer;
    r.exact = pagerank_exact(g, walk.p_halt, walk.step);
    r.comparison = compare_pagerank(g, r.estimate.rank, r.exact.rank);
    const PageRankComparison& cmp = r.comparison;
    char bound[32];
    std::snprintf(bound, sizeof bound, "%.2e", r.exact.error_bound);
    log.info("reference   power iteration: " + std::to_string(r.exact.iterations) + " iterations, L1 error bound " +
             bound + ", " + fmt(timer.seconds(), 3) + " s");
    r.reference_seconds = phase.seconds();
    r.report.number("l1_error", cmp.l1_error, 8, "L1 error", {{"/pagerank", "l1_error"}})
        .number("max_relative_error", cmp.max_relative_error, 8, "max relative error", {{"/pagerank", "max_relative_error"}})
        .count("top_overlap", cmp.top_overlap, "top-" + std::to_string(cmp.top_size) + " overlap", {{"/pagerank", "top_overlap"}})
        .count("reference_iterations", r.exact.iterations);
  }
  const double peak_mib = comm.max(own_peak_memory_mib());
  log.info("memory      " + describe_peak(peak_mib, need / kMiB));
  r.report.number("memory_estimate_mib", need / kMiB, 1).number("peak_mib", peak_mib, 1);
  return r;
}

}  // namespace graphrf
