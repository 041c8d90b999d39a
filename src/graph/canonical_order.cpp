#include "graphrf/graph/canonical_order.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <tuple>
#include <utility>

#include "graphrf/core/radix_sort.hpp"
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

template <class Index>
std::vector<Index> CanonicalOrder::to_canonical(std::span<const std::int64_t> globals) const {
  if (internal_is_canonical_) return std::vector<Index>(globals.begin(), globals.end());
  // Owned indices are looked up here; the others are asked of their owners once per distinct index. The remote
  // ones are sorted with their positions (radix, linear time), so answers go back without searching.
  const DistributedGraph& g = *graph_;
  std::vector<Index> out(globals.size());
  std::vector<std::pair<std::uint64_t, std::uint64_t>> remote;  // (global index, position in `globals`)
  for (std::size_t k = 0; k < globals.size(); ++k) {
    if (g.owns(globals[k]))
      out[k] = static_cast<Index>(g.canonical_index[static_cast<std::size_t>(globals[k] - g.first())]);
    else
      remote.push_back({static_cast<std::uint64_t>(globals[k]), k});
  }
  radix_sort_by_key(remote, static_cast<std::uint64_t>(g.n_global()));
  std::vector<std::int64_t> distinct;
  for (const auto& [global, _] : remote)
    if (distinct.empty() || distinct.back() != static_cast<std::int64_t>(global)) distinct.push_back(static_cast<std::int64_t>(global));
  const std::vector<std::int64_t> answers = request_reply<std::int64_t>(
      *comm_, std::span<const std::int64_t>(distinct), [&](std::int64_t global) { return g.owner(global); },
      [&](std::int64_t global) { return g.canonical_index[static_cast<std::size_t>(global - g.first())]; });
  std::size_t d = 0;
  for (const auto& [global, k] : remote) {
    while (distinct[d] != static_cast<std::int64_t>(global)) ++d;
    out[k] = static_cast<Index>(answers[d]);
  }
  return out;
}
template std::vector<std::int64_t> CanonicalOrder::to_canonical(std::span<const std::int64_t>) const;
template std::vector<std::int32_t> CanonicalOrder::to_canonical(std::span<const std::int64_t>) const;

void CanonicalOrder::plan(std::vector<std::int64_t>& row_counts, std::vector<std::int64_t>& order) const {
  const auto& canonical = graph_->canonical_index;
  row_counts.assign(static_cast<std::size_t>(comm_->size()), 0);
  std::vector<int> destination(canonical.size());
  for (std::size_t i = 0; i < canonical.size(); ++i) {
    destination[i] = blocks_.owner(canonical[i]);
    ++row_counts[static_cast<std::size_t>(destination[i])];
  }
  // Counting sort by destination: stable, one pass.
  std::vector<std::int64_t> next(row_counts.size(), 0);
  for (std::size_t r = 1; r < next.size(); ++r) next[r] = next[r - 1] + row_counts[r - 1];
  order.resize(canonical.size());
  for (std::size_t i = 0; i < canonical.size(); ++i)
    order[static_cast<std::size_t>(next[static_cast<std::size_t>(destination[i])]++)] = static_cast<std::int64_t>(i);
}

RaggedRoute::RaggedRoute(const CanonicalOrder& order, std::span<const std::int64_t> local_indptr)
    : order_(&order), local_indptr_(local_indptr.begin(), local_indptr.end()) {
  if (order.internal_is_canonical()) {
    block_indptr_ = local_indptr_;
    return;
  }
  std::vector<std::int64_t> row_counts;
  order.plan(row_counts, send_rows_);
  // Per row: (canonical index, entry count). The headers of rows that stay here go through the exchange too
  // (they are small), so every block row learns its length the same way.
  const auto& canonical = order.graph_->canonical_index;
  const auto self = static_cast<std::size_t>(order.comm().rank());
  std::vector<std::int64_t> header(2 * send_rows_.size());
  Counts header_counts(row_counts.size());
  entry_counts_.assign(row_counts.size(), 0);
  std::size_t k = 0;
  for (std::size_t r = 0; r < row_counts.size(); ++r) {
    header_counts[r] = 2 * row_counts[r];
    if (r == self) own_rows_ = {static_cast<std::int64_t>(k), static_cast<std::int64_t>(k) + row_counts[r]};
    for (std::int64_t j = 0; j < row_counts[r]; ++j, ++k) {
      const auto i = static_cast<std::size_t>(send_rows_[k]);
      header[2 * k] = canonical[i];
      header[2 * k + 1] = local_indptr_[i + 1] - local_indptr_[i];
      entry_counts_[r] += header[2 * k + 1];
    }
  }
  Counts header_received;
  const std::vector<std::int64_t> got = order.comm().alltoallv(header, header_counts, &header_received);
  entry_counts_[self] = 0;  // own rows are copied in place, never sent
  const std::int64_t first = order.blocks().first(order.comm().rank());
  const auto rows = static_cast<std::size_t>(order.block_rows());
  block_indptr_.assign(rows + 1, 0);
  received_at_.assign(rows, -1);
  std::int64_t offset = 0;
  std::size_t m = 0;
  for (std::size_t source = 0; source < header_received.size(); ++source) {
    for (std::int64_t j = 0; j < header_received[source] / 2; ++j, ++m) {
      const auto row = static_cast<std::size_t>(got[2 * m] - first);
      block_indptr_[row + 1] = got[2 * m + 1];
      if (source == self) continue;
      received_at_[row] = offset;
      offset += got[2 * m + 1];
    }
  }
  for (std::size_t row = 0; row < rows; ++row) block_indptr_[row + 1] += block_indptr_[row];
}

std::vector<std::int64_t> global_indptr(const Communicator& comm, const std::vector<std::int64_t>& block_indptr) {
  const std::int64_t base = comm.exscan_sum(block_indptr.back());
  std::vector<std::int64_t> out(block_indptr.begin(), block_indptr.end() - (comm.rank() + 1 == comm.size() ? 0 : 1));
  for (auto& v : out) v += base;
  return out;
}

namespace {

bool rows_ascending(std::span<const std::int64_t> indptr, std::span<const std::int64_t> columns) {
  for (std::size_t row = 0; row + 1 < indptr.size(); ++row)
    for (auto k = static_cast<std::size_t>(indptr[row]) + 1; k < static_cast<std::size_t>(indptr[row + 1]); ++k)
      if (columns[k] < columns[k - 1]) return false;
  return true;
}

// Bytes per entry H5Output::write_csr stores: int32 or int64 index, float64 value.
double direct_width(const CanonicalOrder& order, std::int64_t nnz) {
  return H5Output::csr_indices_fit_int32(order.n_global(), nnz) ? 12.0 : 16.0;
}

// Sorts the (index, value) entries of every row by index, stably, in place. Rows are short and their entries
// mostly ascending already (a rank's internal indices follow canonical order), so each row is checked first and
// short unsorted ones get an insertion sort: no permutation array, no scratch for most rows.
template <class Index>
void sort_rows_by_index(const std::vector<std::int64_t>& indptr, std::vector<Index>& indices, std::vector<double>& values) {
  std::vector<std::pair<Index, double>> scratch;
  for (std::size_t row = 0; row + 1 < indptr.size(); ++row) {
    const auto begin = static_cast<std::size_t>(indptr[row]), end = static_cast<std::size_t>(indptr[row + 1]);
    if (std::is_sorted(indices.begin() + begin, indices.begin() + end)) continue;
    if (end - begin <= 32) {
      for (std::size_t k = begin + 1; k < end; ++k) {
        const Index key = indices[k];
        const double value = values[k];
        std::size_t j = k;
        for (; j > begin && key < indices[j - 1]; --j) {
          indices[j] = indices[j - 1];
          values[j] = values[j - 1];
        }
        indices[j] = key;
        values[j] = value;
      }
      continue;
    }
    scratch.clear();
    for (std::size_t k = begin; k < end; ++k) scratch.emplace_back(indices[k], values[k]);
    std::stable_sort(scratch.begin(), scratch.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (std::size_t k = begin; k < end; ++k) std::tie(indices[k], values[k]) = scratch[k - begin];
  }
}

}  // namespace

void write_node_csr(H5Output& out, const CanonicalOrder& order, const std::string& group,
                    std::span<const std::int64_t> local_indptr, std::span<const std::int64_t> columns,
                    std::span<const double> data) {
  const std::int64_t nnz = order.comm().sum(static_cast<std::int64_t>(columns.size()));
  const bool direct = order.internal_is_canonical() && rows_ascending(local_indptr, columns);
  const PhaseStep step("write       " + group + ": " + std::to_string(order.n_global()) + " rows, " + std::to_string(nnz) +
                           " entries, " + fmt(direct_width(order, nnz) * 1e-6 * static_cast<double>(nnz), 0) + " MB" +
                           (order.internal_is_canonical() ? "" : ", routed to canonical order and sorted"),
                       slow_output(nnz));
  // One rank or a block partition with rows sorted already (the usual case): written as they are, without copies.
  if (direct) {
    out.write_csr(group, order.n_global(), local_indptr, columns, data);
    return;
  }
  // Column indices travel at the width the file stores them (int32 when they fit: half the bytes to move).
  const RaggedRoute route(order, local_indptr);
  auto route_sort_write = [&]<class Index>() {
    std::vector<Index> indices = route.move<Index>(order.to_canonical<Index>(columns));
    std::vector<double> values = route.move(data);
    sort_rows_by_index(route.block_indptr(), indices, values);
    out.write_csr(group, order.n_global(), route.block_indptr(), std::span<const Index>(indices), values);
  };
  if (H5Output::csr_indices_fit_int32(order.n_global(), nnz)) route_sort_write.template operator()<std::int32_t>();
  else route_sort_write.template operator()<std::int64_t>();
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
