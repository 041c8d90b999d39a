#include "graphrf/graph/graph_output.hpp"

#include <algorithm>

#include "graphrf/core/memory_budget.hpp"
#include "graphrf/core/memory_size.hpp"
#include "graphrf/graph/canonical_order.hpp"
#include "graphrf/mpi/memory_limit.hpp"

namespace graphrf {

void write_nodes(H5Output& out, const DistributedGraph& g) {
  const CanonicalOrder order(g);
  write_node_rows<std::int64_t>(out, order, "/nodes/id", g.original_id);
  const std::vector<std::int32_t> partition(static_cast<size_t>(g.n_local()), g.comm->rank());
  write_node_rows<std::int32_t>(out, order, "/nodes/partition", partition);
  write_node_names(out, g);
}

namespace {
std::size_t node_name_width(const DistributedGraph& g) {
  return std::max<std::size_t>(1, g.comm->max(static_cast<std::uint64_t>(g.names.longest())));
}
}  // namespace

void check_node_names_fit(const DistributedGraph& g, std::uint64_t memory_limit) {
  if (!g.report.string_ids && !g.report.node_labels) return;
  const std::size_t width = node_name_width(g);
  check_memory_fits(*g.comm, static_cast<double>(g.names.size()) * static_cast<double>(width), memory_limit,
                    "/nodes/name (" + std::to_string(g.n_global()) + " names, each padded to the longest: " +
                        format_bytes(static_cast<double>(width)) + "; shorten the names)");
}

void write_node_names(H5Output& out, const DistributedGraph& g) {
  if (!g.report.string_ids && !g.report.node_labels) return;
  // The names (string ids, or GML labels) are already in canonical order, one block per rank in rank order:
  // written as they are.
  check_node_names_fit(g, memory_budget());  // commands check before their run too; this covers every writer
  const std::size_t width = node_name_width(g);
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
