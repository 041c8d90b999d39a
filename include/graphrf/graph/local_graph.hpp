#pragma once
// A whole graph held by one process: the graph of one frame of a point-cloud stack, which one rank builds,
// walks and attends over without messages. Nodes may be stored in any order (the point-graph builder uses a
// spatial order, so that neighbours sit close in memory); `id` and `canonical` name each node. Rows follow the
// same rules as DistributedGraph (neighbours in ascending canonical index, weighted degree d_i = sum of the row
// in that order, W_ij = a_ij / sqrt(d_i d_j)), so walks on it reproduce the distributed engine's walks.
#include <cstdint>
#include <vector>

namespace graphrf {

struct LocalGraph {
  std::vector<std::int64_t> id;                 // per node: its id
  std::vector<std::int64_t> canonical;          // per node: its position among all ids in ascending order
  std::vector<std::int64_t> row_ptr{0};         // n + 1
  std::vector<std::int64_t> col;                // node indices; ascending canonical index within a row
  std::vector<double> weight;                   // a_ij
  std::vector<double> normalized_weight;        // a_ij / sqrt(d_i d_j)
  std::vector<double> degree;                   // d_i

  std::int64_t n() const { return static_cast<std::int64_t>(id.size()); }
  std::int64_t n_arcs() const { return static_cast<std::int64_t>(col.size()); }
};

// Fills degree and normalized_weight from row_ptr, col and weight.
void normalize_local_graph(LocalGraph& g);

}  // namespace graphrf
