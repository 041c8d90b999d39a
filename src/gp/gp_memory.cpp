#include "graphrf/gp/gp_memory.hpp"

#include <algorithm>

#include "graphrf/grf/grf_memory.hpp"

namespace graphrf {

namespace {

// The operator's storage (grf_feature_operator.hpp): per pair (row, other node) its slot, its run of entries and
// its weighted value, and the other node in the sorted lists of local and remote nodes; per entry its length and
// value; per row the start of its pairs.
constexpr double kPairBytes = 8 + 8 + 8 + 8, kEntryBytes = 4 + 8, kRowBytes = 8;
// Building a side sorts every entry with its node, other node, canonical index, length and value (SideEntry), and
// the column side's entries travel to their owners (sent and received).
constexpr double kBuildEntryBytes = 40 + 8;

}  // namespace

double learn_blocks(double train_share) { return 4 + 8 * train_share; }
double predict_blocks(double train_share) { return 10 + 5 * train_share; }

GpMemory estimate_gp_memory(const DistributedGraph& g, const GpRunOptions& o) {
  GpMemory out;
  const GrfMemory grf = estimate_grf_memory(g, o.walk, WalkLimits{}, 1, LengthResolvedRows::keep);
  out.graph_bytes = grf.graph_bytes + grf.in_flight_bytes;
  out.grf_bytes = grf.output_bytes;

  const double n = static_cast<double>(g.n_local()), nodes = static_cast<double>(g.n_global());
  const RowEntries per_row = row_entries_bound(o.walk, g.n_global());
  const double pairs = n * per_row.phi, entries = n * per_row.by_length;
  const double side = kPairBytes * pairs + kEntryBytes * entries + kRowBytes * n;
  // Observed nodes: the synthetic share, or any node for observations from a file; the training rows are those
  // not held out for testing.
  const double observed = o.synthetic.share > 0 ? std::min(1.0, o.synthetic.share) : 1.0;
  const double train_share = observed * (o.split.test_file.empty() ? 1.0 - o.split.test_fraction : 1.0);
  const double tests = std::min(nodes * observed, static_cast<double>(o.exact_variance_max_tests));
  out.operator_bytes = side * (1 + 2 * train_share);  // Phi by rows; Phi_S by rows and by columns

  const double learn_columns = (o.lml.probes > 0 ? o.lml.probes : nodes * train_share) + 1;
  const double predict_columns = std::max<double>(o.prediction.samples + 1, o.prediction.exact_variance ? tests : 0);
  const double learning = o.schedule.iterations > 0 ? learn_blocks(train_share) * learn_columns : 0;
  // A product gathers the rows its pairs read: this rank's (in the blocks above) and those of other ranks, about
  // one per pair that leaves (a visit t hops out lies on another rank with probability at most about t times the
  // share of arcs that leave; a union bound), and no more than the other ranks' nodes.
  const double leaving = std::min(1.0, g.leaving_arc_shares().other_rank * (1.0 + expected_hops_per_walk(o.walk)));
  const double gathered = std::min(pairs * leaving, nodes - n);
  const double widest = std::max(o.schedule.iterations > 0 ? learn_columns : 0.0, predict_columns);
  const double blocks = 8 * n * std::max(learning, predict_blocks(train_share) * predict_columns) + 8 * gathered * widest;
  const double building = 2 * kBuildEntryBytes * entries;  // before any block exists
  out.block_bytes = std::max(blocks, building);
  return out;
}

}  // namespace graphrf
