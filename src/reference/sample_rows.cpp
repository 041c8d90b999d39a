#include "graphrf/reference/sample_rows.hpp"

#include <algorithm>
#include <unordered_map>

namespace graphrf {

NodeSample locate_sample(const DistributedGraph& g, std::vector<std::int64_t> canonical) {
  NodeSample sample;
  sample.canonical = std::move(canonical);
  std::unordered_map<std::int64_t, std::int64_t> local_of;
  for (std::int64_t i = 0; i < g.n_local(); ++i) local_of.emplace(g.canonical_index[static_cast<size_t>(i)], i);
  for (const auto c : sample.canonical) {
    const auto it = local_of.find(c);
    sample.local_row.push_back(it == local_of.end() ? -1 : it->second);
  }
  return sample;
}

Eigen::MatrixXd one_hot_columns(const DistributedGraph& g, const NodeSample& sample) {
  Eigen::MatrixXd x = Eigen::MatrixXd::Zero(g.n_local(), sample.size());
  for (std::int64_t c = 0; c < sample.size(); ++c)
    if (sample.local_row[static_cast<size_t>(c)] >= 0) x(sample.local_row[static_cast<size_t>(c)], c) = 1.0;
  return x;
}

Eigen::MatrixXd replicate_sampled_rows(const Communicator& comm, const NodeSample& sample,
                                       const Eigen::Ref<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>& local) {
  const std::int64_t cols = comm.max(static_cast<std::int64_t>(local.cols()));
  std::vector<double> rows(static_cast<size_t>(sample.size() * cols), 0.0);
  for (std::int64_t c = 0; c < sample.size(); ++c)
    if (const auto i = sample.local_row[static_cast<size_t>(c)]; i >= 0)
      for (std::int64_t x = 0; x < cols; ++x) rows[static_cast<size_t>(c * cols + x)] = local(i, x);
  rows = comm.allreduce(std::move(rows), MPI_SUM);
  Eigen::MatrixXd out(sample.size(), cols);
  for (std::int64_t c = 0; c < sample.size(); ++c)
    for (std::int64_t x = 0; x < cols; ++x) out(c, x) = rows[static_cast<size_t>(c * cols + x)];
  return out;
}

SparseRows replicate_sampled_rows(const Communicator& comm, const NodeSample& sample, const SparseRows& rows) {
  struct Entry {
    std::int64_t sample, col;
    double value;
  };
  std::vector<Entry> mine;
  for (std::int64_t c = 0; c < sample.size(); ++c)
    if (const auto i = sample.local_row[static_cast<size_t>(c)]; i >= 0)
      for (auto k = rows.indptr[static_cast<size_t>(i)]; k < rows.indptr[static_cast<size_t>(i) + 1]; ++k)
        mine.push_back({c, rows.col[static_cast<size_t>(k)], rows.value[static_cast<size_t>(k)]});
  std::vector<Entry> send;  // the same entries to every rank
  for (int r = 0; r < comm.size(); ++r) send.insert(send.end(), mine.begin(), mine.end());
  const Counts counts(static_cast<size_t>(comm.size()), static_cast<std::int64_t>(mine.size()));
  auto all = comm.alltoallv(send, counts);
  std::stable_sort(all.begin(), all.end(), [](const Entry& a, const Entry& b) { return a.sample < b.sample; });
  SparseRows out;
  out.indptr.assign(static_cast<size_t>(sample.size()) + 1, 0);
  for (const auto& e : all) {
    ++out.indptr[static_cast<size_t>(e.sample) + 1];
    out.col.push_back(e.col);
    out.value.push_back(e.value);
  }
  for (size_t c = 1; c < out.indptr.size(); ++c) out.indptr[c] += out.indptr[c - 1];
  return out;
}

double sparse_dot(const SparseRows& a, std::int64_t row_a, const SparseRows& b, std::int64_t row_b) {
  auto i = a.indptr[static_cast<size_t>(row_a)], j = b.indptr[static_cast<size_t>(row_b)];
  const auto i_end = a.indptr[static_cast<size_t>(row_a) + 1], j_end = b.indptr[static_cast<size_t>(row_b) + 1];
  double sum = 0;
  while (i < i_end && j < j_end) {
    const auto ca = a.col[static_cast<size_t>(i)], cb = b.col[static_cast<size_t>(j)];
    if (ca < cb) ++i;
    else if (cb < ca) ++j;
    else sum += a.value[static_cast<size_t>(i++)] * b.value[static_cast<size_t>(j++)];
  }
  return sum;
}

double sparse_entry(const SparseRows& a, std::int64_t row, std::int64_t column) {
  const auto begin = a.col.begin() + a.indptr[static_cast<size_t>(row)], end = a.col.begin() + a.indptr[static_cast<size_t>(row) + 1];
  const auto it = std::lower_bound(begin, end, column);
  return it != end && *it == column ? a.value[static_cast<size_t>(it - a.col.begin())] : 0.0;
}

}  // namespace graphrf
