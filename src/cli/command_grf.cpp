// `graphrf grf`: graph random features on a partitioned graph, written as anndata CSR with the
// length-resolved walk information, kernel coefficients and walk statistics.
#include <algorithm>
#include <sstream>

#include "graphrf/cli/cli.hpp"
#include "graphrf/core/run_phase.hpp"
#include "graphrf/mpi/memory_limit.hpp"
#include "graphrf/grf/dense_gather.hpp"
#include "graphrf/grf/dense_reference.hpp"
#include "graphrf/graph/canonical_order.hpp"
#include "graphrf/graph/graph_output.hpp"
#include "graphrf/grf/grf_memory.hpp"
#include "graphrf/grf/grf_output.hpp"
#include "graphrf/grf/grf_pipeline.hpp"
#include "graphrf/io/h5_output.hpp"
#include "graphrf/mpi/run_summary.hpp"
#include "graphrf/reference/sampled_kernel_reference.hpp"
#include "graphrf/core/timer.hpp"

namespace graphrf {

void add_grf_options(po::options_description& desc) {
  add_graph_options(desc);
  add_kernel_options(desc);
  add_walk_options(desc);
  add_reference_options(desc, "kernel M and report ||estimate - M||_F / ||M||_F");
  po::options_description output("estimator and output");
  output.add_options()
      ("estimator", po::value<std::string>()->default_value("symmetric"), "symmetric | two-ensembles | asymmetric")
      ("out", po::value<std::string>(), "HDF5 output (without it nothing is written)")
      ("by-length", po::bool_switch(), "also write /grf_by_length (M_t for every walk length t, to re-weight f without "
                                       "walking again; 1.5x the bytes of /grf)");
  desc.add(output);
}

// Everything after the graph is loaded, shared with report lines of other commands.
void report_grf(const Log& log, const GrfRun& run, const NnzSummary& nnz, const WalkOptions& walk, std::int64_t n_nodes) {
  const auto& s = run.walks[0];
  double walk_seconds = 0;
  for (const auto& w : run.walks) walk_seconds += w.walk_seconds;
  log.info("walks       " + std::to_string(s.walkers) + " walks (" + std::to_string(walk.walkers) + " walkers per node), " + std::to_string(s.hops) + " hops (" +
           fmt(100.0 * static_cast<double>(s.cross_rank_hops) / std::max<double>(1.0, static_cast<double>(s.hops)), 1) +
           "% crossed ranks), " + std::to_string(s.dead_ends) + " stopped at dead ends, " + std::to_string(s.truncated) +
           " truncated at max-length");
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

int run_grf(const CommandContext& ctx) {
  const Communicator& comm = ctx.comm;
  GraphOptions graph_options;
  KernelSpec kernel;
  WalkOptions walk;
  GrfEstimator estimator{};
  std::string out_path;
  ReferenceOptions reference;
  collective_try(comm, [&] {
    reference = reference_options_from(ctx.vm);
    graph_options = graph_options_from(ctx.vm);
    kernel = kernel_spec_from(ctx.vm);
    walk = walk_options_from(ctx.vm);
    estimator = parse_estimator(ctx.vm["estimator"].as<std::string>());
    if (ctx.vm.count("out")) out_path = ctx.vm["out"].as<std::string>();
  });
  const Log& log = ctx.log;
  Timer total, phase;
  PhaseTimes phases;
  const DistributedGraph g = load_graph_for_command(ctx, graph_options, out_path);
  phases.add("load", phase.seconds());
  bind_walk_weights(log, g, walk, kernel);
  check_reference_plan(g, reference, walk);
  log.info("kernel      " + describe(kernel) + ", estimator " + estimator_name(estimator));

  // Refused before walking when the walks cannot fit (two-ensemble runs walk twice).
  // M_t is held only when /grf_by_length is written.
  const LengthResolvedRows length_resolved = ctx.vm["by-length"].as<bool>() ? LengthResolvedRows::keep : LengthResolvedRows::drop;
  // Entries per row measured on a sample of rows (their own walks), so that walks revisiting a small
  // neighbourhood are not charged one entry per visit; the output is sized for the same count.
  const RowEntries per_row = sampled_row_entries(g, walk, length_resolved, log);
  WalkLimits limits;
  limits.output_entries = output_entries(g, walk, per_row, length_resolved);
  const GrfMemory estimate = estimate_grf_memory(g, walk, limits, ensembles(estimator), length_resolved, per_row);
  log.info("memory      estimate per rank (max): " + describe_max(comm, estimate) + " (output: entries per row measured on a sample of rows)");
  // The dense reference runs on rank 0 after the walks, next to the GRF rows: counted with them.
  const double reference_bytes = dense_reference_bytes(reference, g.n_global());
  if (reference_bytes > 0)
    log.info("memory      dense reference on rank 0: " + fmt(reference_bytes / kMiB, 1) + " MiB more (" +
             fmt(kDenseReferenceMatrices, 0) + " matrices of " + std::to_string(g.n_global()) + " x " +
             std::to_string(g.n_global()) + " doubles)");
  check_memory_fits(comm, comm.max(estimate.total() + (comm.is_root() ? reference_bytes : 0.0)),
                    memory_limit_per_rank(comm, graph_options.memory_limit),
                    "walking (" + std::to_string(walk.walkers) + " walkers per node, " +
                        (walk.fixed_length ? "exactly " + std::to_string(walk.max_length) + " hops" : "p_halt " + fmt(walk.p_halt)) + ")" +
                        (reference_bytes > 0 ? " and the dense reference on rank 0" : ""));
  const RunPhase walking("walking " + graph_options.graph);
  const GrfRun run = compute_grf(g, kernel, walk, estimator, log, limits, length_resolved);
  const NnzSummary nnz = nnz_per_row(comm, run.phi[0]);
  report_grf(log, run, nnz, walk, g.n_global());
  for (const auto& w : run.walks) phases.add("walk", w.walk_seconds);
  phases.add("assemble", run.assemble_seconds);
  // Measured peak against the same terms with the output actually held (the target: within 1.5x).
  const GrfMemory held = grf_memory_with_output(estimate, run);
  const double peak_mib = comm.max(peak_memory_mib()), bound_mib = comm.max(held.total()) / kMiB;
  log.info("memory      peak per rank (max) " + fmt(peak_mib, 0) + " MiB = " + fmt(peak_mib / bound_mib, 2) + " x (" +
           describe_max(comm, held) + ")");

  phase.reset();
  double error = -1;
  SampledError sampled;
  const bool dense = dense_reference(reference, g.n_global());
  Eigen::MatrixXd exact;
  if (reference.enabled) {
    Timer timer;
    log.info("plan        reference " + reference_cost(reference, g.n_global()));
    if (dense) {
      const Eigen::MatrixXd w = gather_dense_w(g, walk);
      const Eigen::MatrixXd estimate = dense_kernel_estimate(g, run);
      if (comm.is_root()) {
        exact = kernel_matrix_exact(kernel, w);
        error = relative_frobenius_error(estimate, exact);
      }
      comm.broadcast(error);
      log.info("reference   ||estimate - M||_F / ||M||_F = " + fmt(error, 6) + " (exact M by dense eigendecomposition, " +
               fmt(timer.seconds(), 2) + " s)");
    } else {
      const SampledKernelColumns columns = sampled_kernel_columns(g, kernel, walk, reference.samples, walk.seed);
      sampled = sampled_column_error(g, sampled_estimate_columns(g, run, columns.sample), columns.exact);
      error = sampled.value;
      log.info("reference   ||estimate - M||_F / ||M||_F = " + fmt(error, 6) + " +- " + fmt(sampled.standard_error, 6) +
               " (standard error; exact rows of M for " + std::to_string(sampled.samples) + " of " +
               std::to_string(g.n_global()) + " nodes by Chebyshev degree " + std::to_string(columns.degree) +
               ", truncation <= " + sci(columns.truncation_bound) + ", " + fmt(comm.max(timer.seconds()), 2) + " s)");
    }
  }
  if (reference.enabled) phases.add("reference", phase.seconds());
  std::ostringstream result;
  result << "nodes=" << g.n_global() << " walks=" << run.walks[0].walkers << " walkers_per_node=" << walk.walkers << " hops=" << run.walks[0].hops
         << " nnz_mean=" << fmt(nnz.mean, 3) << " nnz_max=" << nnz.max << " walk_seconds=" << fmt(run.walks[0].walk_seconds, 4)
         << " assemble_seconds=" << fmt(run.assemble_seconds, 4) << " memory_estimate_mib=" << fmt(comm.max(estimate.total()) / kMiB, 1)
         << " memory_bound_mib=" << fmt(bound_mib, 1) << " peak_mib=" << fmt(peak_mib, 1)
         << " peak_vs_bound=" << fmt(peak_mib / bound_mib, 3);
  if (reference.enabled) {
    result << " kernel_error=" << fmt(error, 8) << " reference_sampled=" << (dense ? 0 : 1);
    if (!dense) result << " kernel_error_se=" << fmt(sampled.standard_error, 8) << " reference_samples=" << sampled.samples;
  }

  phase.reset();
  if (!out_path.empty()) {
    log.info("writing     " + out_path);
    H5Output out(comm, out_path);
    out.write_provenance(ctx.command_line, comm.size(), ctx.config_text, walk.seed);
    write_nodes(out, g);
    write_grf(out, g, run, kernel, walk, ctx.vm["by-length"].as<bool>());
    out.set_attribute("/grf", "nnz_per_row_min", nnz.min);
    out.set_attribute("/grf", "nnz_per_row_mean", nnz.mean);
    out.set_attribute("/grf", "nnz_per_row_max", nnz.max);
    if (reference.enabled) {
      if (dense) write_node_dense_square(out, CanonicalOrder(g), "/kernel/exact", scatter_dense_rows(g, exact));
      else {
        out.set_attribute("/kernel", "relative_frobenius_error_standard_error", sampled.standard_error);
        out.set_attribute("/kernel", "reference_samples", sampled.samples);
      }
      out.set_attribute("/kernel", "relative_frobenius_error", error);
      out.set_attribute("/", "kernel_relative_frobenius_error", error);
    }
    out.commit();
    const double output_seconds = comm.max(phase.seconds());
    log.info("wrote       " + out_path + " in " + fmt(output_seconds, 3) + " s");
    phases.add("write", output_seconds);
    result << " output_seconds=" << fmt(output_seconds, 4) << " run_seconds=" << fmt(comm.max(total.seconds()), 4);
  }
  log.result(result.str());
  log.info(phases.line(total.seconds()));
  print_run_summary(log, comm, total.seconds());
  return 0;
}

}  // namespace graphrf
