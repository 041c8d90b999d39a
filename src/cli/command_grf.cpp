// `graphrf grf`: graph random features on a partitioned graph, written as anndata CSR with the
// length-resolved walk information, kernel coefficients and walk statistics.
#include "graphrf/cli/commands.hpp"
#include "graphrf/core/run_phase.hpp"
#include "graphrf/core/timer.hpp"
#include "graphrf/grf/grf_output.hpp"
#include "graphrf/grf/grf_run.hpp"
#include "graphrf/io/h5_output.hpp"
#include "graphrf/io/report_output.hpp"
#include "graphrf/mpi/run_summary.hpp"
#include "graphrf/reference/grf_reference.hpp"

namespace graphrf {

namespace {

struct GrfCommandOptions {
  GraphArguments graph;
  KernelArguments kernel;
  WalkArguments walk;
  ReferenceOptions reference;
  std::string estimator;
  std::optional<std::string> out;
  bool by_length = false;
};

void declare_grf_options(po::options_description& desc, GrfCommandOptions& o) {
  add_graph_options(desc, o.graph);
  add_kernel_options(desc, o.kernel);
  add_walk_options(desc, o.walk);
  add_reference_options(desc, o.reference, "kernel M and report ||estimate - M||_F / ||M||_F");
  po::options_description output("estimator and output");
  output.add_options()
      ("estimator", po::value(&o.estimator)->default_value("symmetric"), "symmetric | two-ensembles | asymmetric")
      ("out", optional_value(&o.out), "HDF5 output (without it nothing is written)")
      ("by-length", po::bool_switch(&o.by_length), "also write /grf_by_length (M_t for every walk length t, to re-weight f without "
                                       "walking again; 1.5x the bytes of /grf)");
  desc.add(output);
}

int run_grf_command(const CommandContext& ctx, GrfCommandOptions& o) {
  const Communicator& comm = ctx.comm;
  GraphOptions graph_options;
  GrfRunOptions options;
  std::string out_path;
  ReferenceOptions reference;
  collective_try(comm, [&] {
    reference = reference_options_from(o.reference);
    graph_options = graph_options_from(o.graph);
    options.kernel = kernel_spec_from(o.kernel, o.walk.weights);
    options.walk = walk_options_from(o.walk);
    options.estimator = parse_estimator(o.estimator);
    options.by_length = o.by_length;
    options.memory_limit = graph_options.memory_limit;
    if (o.out) out_path = *o.out;
  });
  const Log& log = ctx.log;
  Timer total, phase;
  PhaseTimes phases;
  const DistributedGraph g = load_graph_for_command(ctx, o.graph, graph_options, out_path);
  phases.add("load", phase.seconds());
  bind_walk_weights(log, g, options.walk, options.kernel);
  check_reference_plan(g, reference, options.walk);
  options.dense_reference_matrices = grf_dense_reference_matrices(reference, g.n_global());

  const RunPhase walking("walking " + graph_options.graph);
  const GrfResult result = run_grf(g, options, log);
  for (const auto& w : result.run.walks) phases.add("walk", w.walk_seconds);
  phases.add("assemble", result.run.assemble_seconds);
  Report report = result.report;

  phase.reset();
  GrfReference checked;
  if (reference.enabled) {
    checked = grf_kernel_reference(g, result, options, reference, log);
    report.append(checked.report);
    phases.add("reference", phase.seconds());
  }

  phase.reset();
  if (!out_path.empty()) {
    log.info("writing     " + out_path);
    H5Output out(comm, out_path);
    out.write_provenance(ctx.command_line, comm.size(), ctx.config_text, options.walk.seed);
    write_grf_result(out, g, result, options);
    if (reference.enabled) write_grf_reference(out, g, checked);
    out.commit();
    const double output_seconds = comm.max(phase.seconds());
    log.info("wrote       " + out_path + " in " + fmt(output_seconds, 3) + " s");
    phases.add("write", output_seconds);
    report.number("output_seconds", output_seconds, 4).number("run_seconds", comm.max(total.seconds()), 4);
  }
  print_report(log, report);
  log.info(phases.line(total.seconds()));
  print_run_summary(log, comm, total.seconds());
  return 0;
}

}  // namespace

Command grf_command() {
  return make_command<GrfCommandOptions>("grf", "graph random features from distributed halting random walks",
                                         declare_grf_options, run_grf_command);
}

}  // namespace graphrf
