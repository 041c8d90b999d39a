#include "graphrf/grf/dense_gather.hpp"

#include "graphrf/walks/load_factors.hpp"

namespace graphrf {

namespace {
struct Entry {
  std::int64_t row, col;
  double value;
};

Eigen::MatrixXd gather_entries_on_root(const Communicator& comm, const std::vector<Entry>& local, std::int64_t n) {
  Counts counts(static_cast<size_t>(comm.size()), 0);
  counts[0] = static_cast<std::int64_t>(local.size());
  const auto all = comm.alltoallv(local, counts);
  if (!comm.is_root()) return {};
  Eigen::MatrixXd m = Eigen::MatrixXd::Zero(n, n);
  for (const auto& e : all) m(e.row, e.col) += e.value;
  return m;
}
}  // namespace

Eigen::MatrixXd gather_dense_w(const DistributedGraph& g, const WalkOptions& options) {
  std::vector<Entry> local;
  for (std::int64_t i = 0; i < g.n_local(); ++i)
    for (auto k = g.row_ptr[static_cast<size_t>(i)]; k < g.row_ptr[static_cast<size_t>(i) + 1]; ++k) {
      const auto kk = static_cast<size_t>(k);
      local.push_back({g.first() + i, g.col[kk],
                       options.weights == WeightMode::normalized ? g.normalized_weight[kk]
                       : options.weights == WeightMode::raw      ? options.scale * g.weight[kk]
                                                                 : g.weight[kk] / options.max_degree});
    }
  // The combinatorial walk matrix W = (A + diag(d_max - d_i)) / d_max: the walks' self-loops.
  for (std::int64_t i = 0; i < g.n_local(); ++i)
    if (const double loop = combinatorial_self_loop(options, g.degree[static_cast<size_t>(i)]); loop > 0.0)
      local.push_back({g.first() + i, g.first() + i, loop / options.max_degree});
  return gather_entries_on_root(*g.comm, local, g.n_global());
}

Eigen::MatrixXd gather_dense_rows(const Communicator& comm, const SparseRows& rows, std::int64_t first_row, std::int64_t n) {
  std::vector<Entry> local;
  for (std::int64_t i = 0; i < rows.n_local(); ++i)
    for (auto k = rows.indptr[static_cast<size_t>(i)]; k < rows.indptr[static_cast<size_t>(i) + 1]; ++k)
      local.push_back({first_row + i, rows.col[static_cast<size_t>(k)], rows.value[static_cast<size_t>(k)]});
  return gather_entries_on_root(comm, local, n);
}

Eigen::MatrixXd gather_dense_block(const Communicator& comm,
                                   const Eigen::Ref<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>& local,
                                   std::int64_t n) {
  std::vector<double> send(local.data(), local.data() + local.size());
  Counts counts(static_cast<size_t>(comm.size()), 0);
  counts[0] = static_cast<std::int64_t>(send.size());
  const std::int64_t cols = comm.max(static_cast<std::int64_t>(local.cols()));
  const auto all = comm.alltoallv(send, counts);  // arrives in rank order, which is row order
  if (!comm.is_root()) return {};
  Eigen::MatrixXd out(n, cols);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t c = 0; c < cols; ++c) out(i, c) = all[static_cast<size_t>(i * cols + c)];
  return out;
}

std::vector<double> scatter_dense_rows(const DistributedGraph& g, const Eigen::MatrixXd& dense_on_root) {
  const Communicator& comm = *g.comm;
  const std::int64_t n = g.n_global();
  Counts counts(static_cast<size_t>(comm.size()), 0);
  std::vector<double> send;
  if (comm.is_root()) {
    send.resize(static_cast<size_t>(n * n));
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < n; ++j) send[static_cast<size_t>(i * n + j)] = dense_on_root(i, j);
    for (int r = 0; r < comm.size(); ++r) counts[static_cast<size_t>(r)] = g.dist.count(r) * n;
  }
  return comm.alltoallv(send, counts);
}

}  // namespace graphrf
