// `graphrf info`: load, clean and partition a graph, print what it is and what the loader changed, and
// optionally write it (nodes and normalised or raw adjacency) to HDF5.
#include "graphrf/cli/commands.hpp"
#include "graphrf/core/memory_budget.hpp"
#include "graphrf/core/timer.hpp"
#include "graphrf/graph/graph_info.hpp"
#include "graphrf/graph/graph_output.hpp"
#include "graphrf/io/h5_output.hpp"
#include "graphrf/io/report_output.hpp"
#include "graphrf/mpi/run_summary.hpp"

namespace graphrf {

namespace {

struct InfoCommandOptions {
  GraphArguments graph;
  std::optional<std::string> out;
  std::string weights;
};

void declare_info_options(po::options_description& desc, InfoCommandOptions& o) {
  add_graph_options(desc, o.graph);
  po::options_description output("output");
  output.add_options()
      ("out", optional_value(&o.out), "write /nodes and /graph to this HDF5 file")
      ("weights", po::value(&o.weights)->default_value("normalized"),
       "/graph values: normalized (D^-1/2 A D^-1/2), raw (A), or combinatorial (A, the input graph, with attributes "
       "laplacian = \"D - A\" and max_degree: the self-loops the walks add are not written)");
  desc.add(output);
}

int run_info_command(const CommandContext& ctx, InfoCommandOptions& o) {
  const Communicator& comm = ctx.comm;
  GraphOptions options;
  std::string out_path;
  AdjacencyValues values = AdjacencyValues::normalized;
  collective_try(comm, [&] {
    options = graph_options_from(o.graph);
    const WeightMode weights = parse_weight_mode(o.weights);  // InputError naming --weights
    if (weights == WeightMode::raw) values = AdjacencyValues::raw;
    if (weights == WeightMode::combinatorial) values = AdjacencyValues::combinatorial;
    if (o.out) out_path = *o.out;
  });
  if (!out_path.empty()) check_output_writable(comm, out_path, command_inputs(ctx.vm));

  Timer total_timer;
  const DistributedGraph g = load_command_graph(ctx, o.graph, options);
  if (!out_path.empty()) check_node_names_fit(g, memory_budget());  // before the report, not at the write
  PhaseTimes phases;
  const LoadReport& loaded = g.report;
  phases.add("read", loaded.read_seconds);
  phases.add("assemble", loaded.assemble_seconds);
  phases.add("partition", loaded.partition_seconds);
  phases.add("distribute", loaded.distribute_seconds);
  const Log& log = ctx.log;
  const GraphInfo info = run_info(g, log);
  phases.add("statistics", info.statistics_seconds);
  print_report(log, info.report);

  if (!out_path.empty()) {
    Timer timer;
    H5Output out(comm, out_path);
    out.write_provenance(ctx.command_line, comm.size(), ctx.config_text, std::nullopt);
    write_graph_info(out, g, info, values);
    out.commit();
    log.info("wrote       " + out_path + " in " + fmt(timer.seconds()) + " s");
    phases.add("write", timer.seconds());
  }
  // The whole run: load steps, statistics, write, and what they leave out (graph generation, ...) as other.
  const double total_seconds = total_timer.seconds();
  log.info(phases.line(total_seconds));
  print_run_summary(log, comm, total_seconds);
  return 0;
}

}  // namespace

Command info_command() {
  return make_command<InfoCommandOptions>(
      "info", "load, clean and partition a graph; print its figures; optionally write it to HDF5", declare_info_options,
      run_info_command);
}

}  // namespace graphrf
