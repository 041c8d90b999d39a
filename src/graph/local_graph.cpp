#include "graphrf/graph/local_graph.hpp"

#include <cmath>

namespace graphrf {

void normalize_local_graph(LocalGraph& g) {
  const auto n = static_cast<size_t>(g.n());
  g.degree.assign(n, 0.0);
  for (size_t i = 0; i < n; ++i)
    for (auto k = g.row_ptr[i]; k < g.row_ptr[i + 1]; ++k) g.degree[i] += g.weight[static_cast<size_t>(k)];
  g.normalized_weight.resize(g.weight.size());
  for (size_t i = 0; i < n; ++i)
    for (auto k = static_cast<size_t>(g.row_ptr[i]); k < static_cast<size_t>(g.row_ptr[i + 1]); ++k)
      g.normalized_weight[k] = g.weight[k] / std::sqrt(g.degree[i] * g.degree[static_cast<size_t>(g.col[k])]);
}

}  // namespace graphrf
