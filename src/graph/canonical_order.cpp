#include "graphrf/graph/canonical_order.hpp"

#include <algorithm>
#include <numeric>

#include "graphrf/mpi/request_reply.hpp"

namespace graphrf {

CanonicalOrder::CanonicalOrder(const DistributedGraph& g)
    : comm_(g.comm), graph_(&g) {
  bool in_order = true;
  for (std::size_t i = 0; i < g.canonical_index.size(); ++i)
    in_order = in_order && g.canonical_index[i] == g.first() + static_cast<std::int64_t>(i);
  internal_is_canonical_ = comm_->min(in_order ? 1 : 0) == 1;
  blocks_ = internal_is_canonical_ ? g.dist : BlockDistribution::uniform(g.n_global(), g.comm->size());
}

std::vector<std::int64_t> CanonicalOrder::to_canonical(std::span<const std::int64_t> globals) const {
  if (internal_is_canonical_) return std::vector<std::int64_t>(globals.begin(), globals.end());
  // Owned indices are looked up here; the others are asked of their owners once per distinct index.
  const DistributedGraph& g = *graph_;
  std::vector<std::int64_t> out(globals.size()), remote;
  for (std::size_t k = 0; k < globals.size(); ++k) {
    if (g.owns(globals[k]))
      out[k] = g.canonical_index[static_cast<std::size_t>(globals[k] - g.first())];
    else
      remote.push_back(globals[k]);
  }
  std::sort(remote.begin(), remote.end());
  remote.erase(std::unique(remote.begin(), remote.end()), remote.end());
  const std::vector<std::int64_t> answers = request_reply<std::int64_t>(
      *comm_, std::span<const std::int64_t>(remote), [&](std::int64_t global) { return g.owner(global); },
      [&](std::int64_t global) { return g.canonical_index[static_cast<std::size_t>(global - g.first())]; });
  for (std::size_t k = 0; k < globals.size(); ++k)
    if (!g.owns(globals[k]))
      out[k] = answers[static_cast<std::size_t>(std::lower_bound(remote.begin(), remote.end(), globals[k]) - remote.begin())];
  return out;
}

void CanonicalOrder::plan(std::vector<std::int64_t>& row_counts, std::vector<std::int64_t>& order) const {
  const auto& canonical = graph_->canonical_index;
  row_counts.assign(static_cast<std::size_t>(comm_->size()), 0);
  std::vector<int> destination(canonical.size());
  for (std::size_t i = 0; i < canonical.size(); ++i) {
    destination[i] = blocks_.owner(canonical[i]);
    ++row_counts[static_cast<std::size_t>(destination[i])];
  }
  order.resize(canonical.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
    return destination[static_cast<std::size_t>(a)] < destination[static_cast<std::size_t>(b)];
  });
}

std::vector<std::int64_t> global_indptr(const Communicator& comm, const std::vector<std::int64_t>& block_indptr) {
  const std::int64_t base = comm.exscan_sum(block_indptr.back());
  std::vector<std::int64_t> out(block_indptr.begin(), block_indptr.end() - (comm.rank() + 1 == comm.size() ? 0 : 1));
  for (auto& v : out) v += base;
  return out;
}

void write_node_csr(H5Output& out, const CanonicalOrder& order, const std::string& group,
                    std::span<const std::int64_t> local_indptr, std::span<const std::int64_t> columns,
                    std::span<const double> data) {
  const std::int64_t nnz = order.comm().sum(static_cast<std::int64_t>(columns.size()));
  const PhaseStep step("write       " + group + ": " + std::to_string(order.n_global()) + " rows, " + std::to_string(nnz) +
                           " entries, " + fmt(16e-6 * static_cast<double>(nnz), 0) + " MB" +
                           (order.internal_is_canonical() ? "" : ", routed to canonical order and sorted"),
                       slow_output(nnz));
  struct Entry {
    std::int64_t column;
    double value;
  };
  std::vector<Entry> entries(columns.size());
  for (std::size_t k = 0; k < entries.size(); ++k) entries[k] = {columns[k], data[k]};
  const CanonicalRaggedBlock<Entry> block = route_sparse_rows(
      order, local_indptr, std::move(entries), [](const Entry& a, const Entry& b) { return a.column < b.column; });
  std::vector<std::int64_t> indices(block.entries.size());
  std::vector<double> values(block.entries.size());
  for (std::size_t k = 0; k < block.entries.size(); ++k) {
    indices[k] = block.entries[k].column;
    values[k] = block.entries[k].value;
  }
  out.write_csr(group, order.n_global(), block.indptr, indices, values);
}

void write_node_dense_square(H5Output& out, const CanonicalOrder& order, const std::string& dataset,
                             std::span<const double> local) {
  const std::int64_t n = order.n_global();
  std::vector<std::int64_t> internal(static_cast<std::size_t>(n));
  std::iota(internal.begin(), internal.end(), 0);
  const std::vector<std::int64_t> canonical = order.to_canonical(internal);
  std::vector<double> permuted(local.size());
  for (std::size_t row = 0; row * static_cast<std::size_t>(n) < local.size(); ++row)
    for (std::size_t j = 0; j < static_cast<std::size_t>(n); ++j)
      permuted[row * static_cast<std::size_t>(n) + static_cast<std::size_t>(canonical[j])] =
          local[row * static_cast<std::size_t>(n) + j];
  write_node_rows<double>(out, order, dataset, permuted, {static_cast<std::uint64_t>(n)});
}

}  // namespace graphrf
