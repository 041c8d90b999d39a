// `graphrf info`: load, clean and partition a graph, print what it is and what the loader changed, and
// optionally write it (nodes and normalised or raw adjacency) to HDF5.
#include <sstream>

#include "graphrf/cli/cli.hpp"
#include "graphrf/grf/combinatorial_laplacian.hpp"
#include "graphrf/graph/graph_output.hpp"
#include "graphrf/graph/graph_statistics.hpp"
#include "graphrf/io/h5_output.hpp"
#include "graphrf/mpi/phase_progress.hpp"
#include "graphrf/mpi/run_summary.hpp"
#include "graphrf/core/memory_budget.hpp"
#include "graphrf/core/timer.hpp"

namespace graphrf {

void add_info_options(po::options_description& desc) {
  add_graph_options(desc);
  po::options_description output("output");
  output.add_options()
      ("out", po::value<std::string>(), "write /nodes and /graph to this HDF5 file")
      ("weights", po::value<std::string>()->default_value("normalized"),
       "/graph values: normalized (D^-1/2 A D^-1/2), raw (A), or combinatorial (A, the input graph, with attributes "
       "laplacian = \"D - A\" and max_degree: the self-loops the walks add are not written)");
  desc.add(output);
}

namespace {
std::string mam(const MinAvgMax& m, int precision = 0) {
  return fmt(m.min, precision) + " / " + fmt(m.avg, precision == 0 ? 1 : precision) + " / " + fmt(m.max, precision);
}
}  // namespace

int run_info(const CommandContext& ctx) {
  const Communicator& comm = ctx.comm;
  GraphOptions options;
  std::string out_path, weights;
  collective_try(comm, [&] {
    options = graph_options_from(ctx.vm);
    weights = ctx.vm["weights"].as<std::string>();
    parse_weight_mode(weights);  // InputError naming --weights
    if (ctx.vm.count("out")) out_path = ctx.vm["out"].as<std::string>();
  });
  if (!out_path.empty()) check_output_writable(comm, out_path, command_inputs(ctx.vm));

  Timer total_timer;
  const DistributedGraph g = load_command_graph(ctx, options);
  if (!out_path.empty()) check_node_names_fit(g, memory_budget());  // before the report, not at the write
  PhaseTimes phases;
  const LoadReport& loaded = g.report;
  phases.add("read", loaded.read_seconds);
  phases.add("assemble", loaded.assemble_seconds);
  phases.add("partition", loaded.partition_seconds);
  phases.add("distribute", loaded.distribute_seconds);
  Timer phase;
  GraphStatistics s;
  {
    // Connected components take label-propagation rounds over the whole graph: seconds on large ones.
    constexpr std::int64_t kSlowNodes = std::int64_t{1} << 20;
    const PhaseStep step("statistics  degrees, connected components, edge cut", g.n_global() >= kSlowNodes);
    s = compute_statistics(g);
  }
  phases.add("statistics", phase.seconds());
  const LoadReport& r = g.report;
  const Log& log = ctx.log;
  log.info("graph       " + r.source);
  log.info("nodes       " + std::to_string(s.nodes) + "   edges " + std::to_string(s.edges) + (r.weighted ? " (weighted)" : ""));
  log.info("degree      min/mean/max " + fmt(s.degree.min, 0) + " / " + fmt(s.degree.avg, 2) + " / " + fmt(s.degree.max, 0));
  log.info("isolated    " + std::to_string(s.isolated) + "   connected components " + std::to_string(s.components));
  const auto adjustments = r.adjustments(s.edges);
  if (adjustments.empty()) log.info("loader      no adjustments");
  for (const auto& a : adjustments) log.info("loader      " + a);
  const double cut_share = s.edges ? 100.0 * static_cast<double>(s.edge_cut) / static_cast<double>(s.edges) : 0.0;
  log.info("partition   " + g.partitioner + " on " + std::to_string(comm.size()) + " ranks: edge cut " +
           std::to_string(s.edge_cut) + " (" + fmt(cut_share, 1) + "% of edges), balance nodes " +
           fmt(g.quality.node_balance, 3) + " arcs " + fmt(g.quality.arc_balance, 3));
  log.info("per rank    min / avg / max   nodes " + mam(s.owned_nodes) + "   arcs " + mam(s.owned_arcs) + "   ghosts " +
           mam(s.ghosts));
  std::ostringstream result;
  result << "nodes=" << s.nodes << " edges=" << s.edges << " components=" << s.components << " isolated=" << s.isolated
         << " edge_cut=" << s.edge_cut << " ranks=" << comm.size() << " load_seconds="
         << fmt(r.read_seconds + r.assemble_seconds, 4) << " partition_seconds=" << fmt(r.partition_seconds, 4)
         << " distribute_seconds=" << fmt(r.distribute_seconds, 4);
  log.result(result.str());

  if (!out_path.empty()) {
    Timer timer;
    H5Output out(comm, out_path);
    out.write_provenance(ctx.command_line, comm.size(), ctx.config_text, std::nullopt);
    write_nodes(out, g);
    write_adjacency(out, g, weights == "normalized");
    // D - A is A with its row sums: /graph keeps the input graph, and says how to read it as L = D - A.
    if (weights == "combinatorial") {
      out.set_attribute("/graph", "laplacian", std::string("D - A"));
      out.set_attribute("/graph", "max_degree", max_weighted_degree(g));
    }
    out.set_attribute("/graph", "edges", s.edges);
    out.set_attribute("/graph", "components", s.components);
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

}  // namespace graphrf
