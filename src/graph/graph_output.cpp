#include "graphrf/graph/graph_output.hpp"

#include <algorithm>
#include <numeric>

namespace graphrf {

void write_nodes(H5Output& out, const DistributedGraph& g) {
  out.write_rows<std::int64_t>("/nodes/id", g.original_id);
  const std::vector<std::int32_t> partition(static_cast<size_t>(g.n_local()), g.comm->rank());
  out.write_rows<std::int32_t>("/nodes/partition", partition);
}

void write_adjacency(H5Output& out, const DistributedGraph& g, bool normalized, const std::string& group) {
  // Rows are stored in canonical neighbour order; scipy wants indices ascending within each row.
  const auto& values = normalized ? g.normalized_weight : g.weight;
  std::vector<std::int64_t> indptr(g.row_ptr.begin(), g.row_ptr.end()), indices(g.col.size());
  std::vector<double> data(g.col.size());
  std::vector<size_t> order;
  for (size_t i = 0; i + 1 < g.row_ptr.size(); ++i) {
    const auto begin = static_cast<size_t>(g.row_ptr[i]), end = static_cast<size_t>(g.row_ptr[i + 1]);
    order.resize(end - begin);
    std::iota(order.begin(), order.end(), begin);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return g.col[a] < g.col[b]; });
    for (size_t k = 0; k < order.size(); ++k) {
      indices[begin + k] = g.col[order[k]];
      data[begin + k] = values[order[k]];
    }
  }
  out.write_csr(group, g.n_global(), indptr, indices, data);
  out.set_attribute(group, "weights", std::string(normalized ? "normalized" : "raw"));
}

}  // namespace graphrf
