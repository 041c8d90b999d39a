#include "graphrf/walks/pagerank_output.hpp"

#include "graphrf/graph/canonical_order.hpp"
#include "graphrf/graph/graph_output.hpp"
#include "graphrf/io/report_output.hpp"

namespace graphrf {

void write_pagerank_result(H5Output& out, const DistributedGraph& g, const PageRankResult& result) {
  const WalkOptions& walk = result.walk;
  const CanonicalOrder order(g);
  write_node_rows(out, order, "/nodes/id", g.original_id);
  write_node_names(out, g);
  write_node_rows(out, order, "/pagerank/estimate", result.estimate.rank);
  out.set_attribute("/pagerank", "damping", 1 - walk.p_halt);
  out.set_attribute("/pagerank", "walkers", walk.walkers);
  out.set_attribute("/pagerank", "coupling", coupling_name(walk.coupling));
  out.set_attribute("/pagerank", "step", std::string(walk.step == StepRule::weighted ? "weighted" : "uniform"));
  if (result.reference) write_node_rows(out, order, "/pagerank/exact", result.exact.rank);
  write_report(out, result.report);
}

}  // namespace graphrf
