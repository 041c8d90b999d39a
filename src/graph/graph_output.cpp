#include "graphrf/graph/graph_output.hpp"

#include <algorithm>

#include "graphrf/graph/canonical_order.hpp"

namespace graphrf {

void write_nodes(H5Output& out, const DistributedGraph& g) {
  const CanonicalOrder order(g);
  write_node_rows<std::int64_t>(out, order, "/nodes/id", g.original_id);
  const std::vector<std::int32_t> partition(static_cast<size_t>(g.n_local()), g.comm->rank());
  write_node_rows<std::int32_t>(out, order, "/nodes/partition", partition);
  write_node_names(out, g);
}

void write_node_names(H5Output& out, const DistributedGraph& g) {
  if (!g.report.string_ids && !g.report.node_labels) return;
  // The names (string ids, or GML labels) are already in canonical order, one block per rank in rank order:
  // written as they are.
  const std::size_t width = std::max<std::size_t>(1, g.comm->max(static_cast<std::uint64_t>(g.names.longest())));
  std::vector<char> padded(g.names.size() * width, '\0');
  for (std::size_t i = 0; i < g.names.size(); ++i) {
    const std::string_view name = g.names[i];
    std::copy(name.begin(), name.end(), padded.begin() + static_cast<std::ptrdiff_t>(i * width));
  }
  out.write_fixed_strings("/nodes/name", padded, width);
}

void write_adjacency(H5Output& out, const DistributedGraph& g, bool normalized, const std::string& group) {
  write_node_csr(out, CanonicalOrder(g), group, g.row_ptr, g.col, normalized ? g.normalized_weight : g.weight);
  out.set_attribute(group, "weights", std::string(normalized ? "normalized" : "raw"));
}

}  // namespace graphrf
