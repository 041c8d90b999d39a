#include "graphrf/graph/laplacian_operator.hpp"

#include <memory>

namespace graphrf {

namespace {
// L = I - D^-1/2 A D^-1/2 (normalised) or D - A (combinatorial): y_i = s_i x_i - sum_j w_ij x_j.
DistributedOperator laplacian_operator(const DistributedGraph& g, bool combinatorial) {
  DistributedOperator op;
  op.comm = g.comm;
  op.n_global = g.n_global();
  op.first_row = g.first();
  op.n_local = g.n_local();
  op.row_keys = g.canonical_index;
  // Where each arc's neighbour row lives: >= 0 owned local row, < 0 ghost slot (-1 - slot). Computed once.
  auto source = std::make_shared<std::vector<std::int64_t>>(g.col.size());
  for (size_t k = 0; k < g.col.size(); ++k) {
    const auto c = g.col[k];
    (*source)[k] = g.owns(c) ? c - g.first() : -1 - g.ghost_slot(c);
  }
  op.apply = [&g, source, combinatorial](const Eigen::MatrixXd& x, Eigen::MatrixXd& y) {
    const Eigen::Index b = x.cols();
    // Ghost exchange of whole rows: pack rows contiguously (Eigen is column-major).
    const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> rows = x;
    std::vector<double> ghosts(g.ghosts.size() * static_cast<size_t>(b));
    g.ghost_exchange.exchange<double>(std::span<const double>(rows.data(), static_cast<size_t>(rows.size())), ghosts,
                                      static_cast<int>(b));
    y.resize(x.rows(), b);
    std::vector<double> acc(static_cast<size_t>(b));
    for (std::int64_t i = 0; i < g.n_local(); ++i) {
      std::fill(acc.begin(), acc.end(), 0.0);
      for (auto k = g.row_ptr[static_cast<size_t>(i)]; k < g.row_ptr[static_cast<size_t>(i) + 1]; ++k) {
        const double w = combinatorial ? g.weight[static_cast<size_t>(k)] : g.normalized_weight[static_cast<size_t>(k)];
        const std::int64_t s = (*source)[static_cast<size_t>(k)];
        const double* xr = s >= 0 ? rows.data() + s * b : ghosts.data() + (-1 - s) * b;
        for (Eigen::Index c = 0; c < b; ++c) acc[static_cast<size_t>(c)] += w * xr[c];
      }
      const double diagonal = combinatorial ? g.degree[static_cast<size_t>(i)] : 1.0;
      for (Eigen::Index c = 0; c < b; ++c) y(i, c) = diagonal * x(i, c) - acc[static_cast<size_t>(c)];
    }
  };
  return op;
}
}  // namespace

DistributedOperator normalized_laplacian_operator(const DistributedGraph& g) { return laplacian_operator(g, false); }

DistributedOperator combinatorial_laplacian_operator(const DistributedGraph& g) { return laplacian_operator(g, true); }

}  // namespace graphrf
