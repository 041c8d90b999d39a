// `graphrf grf`: graph random features on a partitioned graph, written as anndata CSR with the
// length-resolved walk information, kernel coefficients and walk statistics.
#include <sstream>

#include "graphrf/cli/cli.hpp"
#include "graphrf/grf/dense_gather.hpp"
#include "graphrf/grf/dense_reference.hpp"
#include "graphrf/graph/graph_output.hpp"
#include "graphrf/grf/grf_memory.hpp"
#include "graphrf/grf/grf_output.hpp"
#include "graphrf/grf/grf_pipeline.hpp"
#include "graphrf/io/h5_output.hpp"
#include "graphrf/mpi/run_summary.hpp"
#include "graphrf/core/timer.hpp"

namespace graphrf {

void add_grf_options(po::options_description& desc) {
  add_graph_options(desc);
  add_kernel_options(desc);
  add_walk_options(desc);
  desc.add_options()
      ("estimator", po::value<std::string>()->default_value("symmetric"), "symmetric | two-ensembles | asymmetric")
      ("reference", po::bool_switch(), "also compute the exact kernel densely (small graphs) and the relative error")
      ("out", po::value<std::string>(), "HDF5 output (without it nothing is written)");
}

// Everything after the graph is loaded, shared with report lines of other commands.
void report_grf(const Log& log, const GrfRun& run, const NnzSummary& nnz, const WalkOptions& walk) {
  const auto& s = run.walks[0];
  double walk_seconds = 0;
  for (const auto& w : run.walks) walk_seconds += w.walk_seconds;
  log.info("walks       " + std::to_string(s.walkers) + " walkers, " + std::to_string(s.hops) + " hops (" +
           fmt(100.0 * static_cast<double>(s.cross_rank_hops) / std::max<double>(1.0, static_cast<double>(s.hops)), 1) +
           "% crossed ranks), " + std::to_string(s.dead_ends) + " stopped at dead ends, " + std::to_string(s.truncated) +
           " truncated at max-length");
  log.info("grf         nnz per row min/mean/max " + std::to_string(nnz.min) + " / " + fmt(nnz.mean, 1) + " / " +
           std::to_string(nnz.max) + " (Lemma 3.3 bound 1 + n*b = " + fmt(sparsity_bound(walk.walkers, walk.p_halt, 0.01), 1) +
           " with probability 0.99 per node)");
  log.info("time [s]    walk " + fmt(walk_seconds) + " (" + fmt(static_cast<double>(s.hops) * static_cast<double>(run.walks.size()) / walk_seconds / 1e6, 2) +
           "M hops/s)  assemble " + fmt(run.assemble_seconds));
}

int run_grf(const CommandContext& ctx) {
  const Communicator& comm = ctx.comm;
  GraphOptions graph_options;
  KernelSpec kernel;
  WalkOptions walk;
  GrfEstimator estimator{};
  std::string out_path;
  const bool reference = ctx.vm["reference"].as<bool>();
  collective_try(comm, [&] {
    graph_options = graph_options_from(ctx.vm);
    kernel = kernel_spec_from(ctx.vm);
    walk = walk_options_from(ctx.vm);
    estimator = parse_estimator(ctx.vm["estimator"].as<std::string>());
    if (ctx.vm.count("out")) out_path = ctx.vm["out"].as<std::string>();
  });
  const Log& log = ctx.log;
  Timer total;
  const DistributedGraph g = load_graph_for_command(ctx, graph_options, out_path, reference);
  log.info("kernel      " + describe(kernel) + ", estimator " + estimator_name(estimator));

  const GrfMemory estimate = estimate_grf_memory(g, walk, WalkLimits{}, ensembles(estimator));
  log.info("memory      estimate per rank (max): " + describe_max(comm, estimate) + " (output: one entry per visit)");
  const GrfRun run = compute_grf(g, kernel, walk, estimator, log);
  const NnzSummary nnz = nnz_per_row(comm, run.phi[0]);
  report_grf(log, run, nnz, walk);
  // Measured peak against the same terms with the output actually held (the target: within 1.5x).
  const GrfMemory held = grf_memory_with_output(estimate, run);
  const double peak_mib = comm.max(peak_memory_mib()), bound_mib = comm.max(held.total()) / kMiB;
  log.info("memory      peak per rank (max) " + fmt(peak_mib, 0) + " MiB = " + fmt(peak_mib / bound_mib, 2) + " x (" +
           describe_max(comm, held) + ")");

  double error = -1;
  Eigen::MatrixXd exact;
  if (reference) {
    Timer timer;
    const Eigen::MatrixXd w = gather_dense_w(g, walk);
    const Eigen::MatrixXd estimate = dense_kernel_estimate(g, run);
    if (comm.is_root()) {
      exact = kernel_matrix_exact(kernel, w);
      error = relative_frobenius_error(estimate, exact);
    }
    comm.broadcast(error);
    log.info("reference   ||estimate - M||_F / ||M||_F = " + fmt(error, 6) + " (exact M by dense eigendecomposition, " +
             fmt(timer.seconds(), 2) + " s)");
  }
  std::ostringstream result;
  result << "nodes=" << g.n_global() << " walkers=" << run.walks[0].walkers << " hops=" << run.walks[0].hops
         << " nnz_mean=" << fmt(nnz.mean, 3) << " nnz_max=" << nnz.max << " walk_seconds=" << fmt(run.walks[0].walk_seconds, 4)
         << " assemble_seconds=" << fmt(run.assemble_seconds, 4) << " memory_estimate_mib=" << fmt(comm.max(estimate.total()) / kMiB, 1)
         << " memory_bound_mib=" << fmt(bound_mib, 1) << " peak_mib=" << fmt(peak_mib, 1)
         << " peak_vs_bound=" << fmt(peak_mib / bound_mib, 3);
  if (reference) result << " kernel_error=" << fmt(error, 8);
  log.result(result.str());

  if (!out_path.empty()) {
    H5Output out(comm, out_path);
    out.write_provenance(ctx.command_line, comm.size(), ctx.config_text, walk.seed);
    write_nodes(out, g);
    write_grf(out, g, run, kernel, walk);
    out.set_attribute("/grf", "nnz_per_row_min", nnz.min);
    out.set_attribute("/grf", "nnz_per_row_mean", nnz.mean);
    out.set_attribute("/grf", "nnz_per_row_max", nnz.max);
    if (reference) {
      out.write_rows<double>("/kernel/exact", scatter_dense_rows(g, exact), {static_cast<std::uint64_t>(g.n_global())});
      out.set_attribute("/kernel", "relative_frobenius_error", error);
      out.set_attribute("/", "kernel_relative_frobenius_error", error);
    }
    out.commit();
    log.info("wrote       " + out_path);
  }
  std::int64_t sent = 0;
  for (const auto& w : run.walks) sent += w.bytes_sent;
  print_run_summary(log, comm, total.seconds(), sent);
  return 0;
}

}  // namespace graphrf
