#include "graphrf/graph/graph_info.hpp"

#include "graphrf/core/timer.hpp"
#include "graphrf/graph/graph_output.hpp"
#include "graphrf/io/report_output.hpp"
#include "graphrf/mpi/phase_progress.hpp"

namespace graphrf {

namespace {
std::string mam(const MinAvgMax& m, int precision = 0) {
  return fmt(m.min, precision) + " / " + fmt(m.avg, precision == 0 ? 1 : precision) + " / " + fmt(m.max, precision);
}
}  // namespace

GraphInfo run_info(const DistributedGraph& g, const Log& log) {
  const Communicator& comm = *g.comm;
  GraphInfo info;
  Timer phase;
  GraphStatistics& s = info.statistics;
  {
    // Connected components take label-propagation rounds over the whole graph: seconds on large ones.
    constexpr std::int64_t kSlowNodes = std::int64_t{1} << 20;
    const PhaseStep step("statistics  degrees, connected components, edge cut", g.n_global() >= kSlowNodes);
    s = compute_statistics(g);
  }
  info.statistics_seconds = phase.seconds();
  const LoadReport& r = g.report;
  log.info("graph       " + r.source);
  log.info("nodes       " + std::to_string(s.nodes) + "   edges " + std::to_string(s.edges) + (r.weighted ? " (weighted)" : ""));
  log.info("degree      min/mean/max " + fmt(s.degree.min, 0) + " / " + fmt(s.degree.avg, 2) + " / " + fmt(s.degree.max, 0));
  log.info("isolated    " + std::to_string(s.isolated) + "   connected components " + std::to_string(s.components));
  const auto adjustments = r.adjustments(s.edges);
  if (adjustments.empty()) log.info("loader      no adjustments");
  for (const auto& a : adjustments) log.info("loader      " + a);
  const double cut_share = s.edges ? 100.0 * static_cast<double>(s.edge_cut) / static_cast<double>(s.edges) : 0.0;
  log.info("partition   " + g.partitioner + " on " + std::to_string(comm.size()) + " ranks: edge cut " +
           std::to_string(s.edge_cut) + " (" + fmt(cut_share, 1) + "% of edges)" +
           (g.quality.host_edge_cut >= 0 ? ", between hosts " + std::to_string(g.quality.host_edge_cut) : std::string()) +
           ", balance nodes " +
           fmt(g.quality.node_balance, 3) + " arcs " + fmt(g.quality.arc_balance, 3));
  log.info("per rank    min / avg / max   nodes " + mam(s.owned_nodes) + "   arcs " + mam(s.owned_arcs) + "   ghosts " +
           mam(s.ghosts));
  info.report.count("nodes", s.nodes)
      .count("edges", s.edges, {}, {{"/graph", "edges"}})
      .count("components", s.components, {}, {{"/graph", "components"}})
      .count("isolated", s.isolated)
      .count("edge_cut", s.edge_cut)
      .count("ranks", comm.size())
      .number("load_seconds", r.read_seconds + r.assemble_seconds, 4)
      .number("partition_seconds", r.partition_seconds, 4)
      .number("distribute_seconds", r.distribute_seconds, 4);
  return info;
}

void write_graph_info(H5Output& out, const DistributedGraph& g, const GraphInfo& info, AdjacencyValues values) {
  write_nodes(out, g);
  write_adjacency(out, g, values == AdjacencyValues::normalized);
  // D - A is A with its row sums: /graph keeps the input graph, and says how to read it as L = D - A.
  if (values == AdjacencyValues::combinatorial) {
    out.set_attribute("/graph", "laplacian", std::string("D - A"));
    out.set_attribute("/graph", "max_degree", max_weighted_degree(g));
  }
  write_report(out, info.report);
}

}  // namespace graphrf
