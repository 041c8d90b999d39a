#include "graphrf/graph/graph_output.hpp"

#include "graphrf/graph/canonical_order.hpp"

namespace graphrf {

void write_nodes(H5Output& out, const DistributedGraph& g) {
  const CanonicalOrder order(g);
  write_node_rows<std::int64_t>(out, order, "/nodes/id", g.original_id);
  const std::vector<std::int32_t> partition(static_cast<size_t>(g.n_local()), g.comm->rank());
  write_node_rows<std::int32_t>(out, order, "/nodes/partition", partition);
}

void write_adjacency(H5Output& out, const DistributedGraph& g, bool normalized, const std::string& group) {
  write_node_csr(out, CanonicalOrder(g), group, g.row_ptr, g.col, normalized ? g.normalized_weight : g.weight);
  out.set_attribute(group, "weights", std::string(normalized ? "normalized" : "raw"));
}

}  // namespace graphrf
