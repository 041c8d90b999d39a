#pragma once
// Canonical node order for outputs: row i of every node-indexed dataset is the node with the i-th smallest
// original id (the loader's canonical index), and sparse column indices use the same numbering, whatever the
// rank count or partition. Internally rows are grouped by owning rank (contiguous relabelled ranges); this is
// the one place that turns that order back into the canonical one.
//
// How: canonical indices are split into uniform blocks, one per rank; each rank sends its rows to the owners of
// their canonical indices (one all-to-all) and then writes its block contiguously and collectively. No rank holds
// more than its block plus its own rows. When the internal order already is the canonical one (one rank, the
// block partitioner, any partition that keeps ranks' id ranges in order), each rank's block is its own rows and
// nothing moves. Every function is collective.
#include <algorithm>
#include <numeric>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "graphrf/graph/distributed_graph.hpp"
#include "graphrf/io/h5_output.hpp"
#include "graphrf/mpi/block_distribution.hpp"
#include "graphrf/mpi/phase_progress.hpp"

namespace graphrf {

class CanonicalOrder {
 public:
  explicit CanonicalOrder(const DistributedGraph& g);

  const Communicator& comm() const { return *comm_; }
  std::int64_t n_global() const { return blocks_.total(); }
  // Canonical rows this rank writes: [blocks().first(rank), + blocks().count(rank)).
  const BlockDistribution& blocks() const { return blocks_; }
  std::int64_t block_rows() const { return blocks_.count(comm_->rank()); }
  // True when internal global index i is canonical index i on every rank: blocks are the owned ranges.
  bool internal_is_canonical() const { return internal_is_canonical_; }

  // The canonical index of each internal global index (any node of the graph; collective, answered by owners).
  // Index: int64, or int32 when every canonical index fits.
  template <class Index = std::int64_t>
  std::vector<Index> to_canonical(std::span<const std::int64_t> globals) const;

  // Fixed-width rows (row-major, `width` values per local row, local row order) -> this rank's canonical block.
  template <class T>
  std::vector<T> route_rows(std::span<const T> local, std::size_t width) const;

 private:
  friend class RaggedRoute;
  // Send counts per destination rank and the order (local rows grouped by destination) to pack them in.
  void plan(std::vector<std::int64_t>& row_counts, std::vector<std::int64_t>& order) const;


  const Communicator* comm_;
  const DistributedGraph* graph_;
  bool internal_is_canonical_ = false;
  BlockDistribution blocks_;
};

// Outputs of this many values or entries (about a second or more to route and write) say when their write
// starts and ends (PhaseStep); smaller ones stay silent.
inline bool slow_output(std::int64_t values) { return values >= (std::int64_t{1} << 23); }

// Writes per-node rows (`trailing` as in H5Output::write_rows) in canonical order.
template <class T>
void write_node_rows(H5Output& out, const CanonicalOrder& order, const std::string& dataset,
                     std::span<const T> local, std::vector<std::uint64_t> trailing = {});
template <class T>
void write_node_rows(H5Output& out, const CanonicalOrder& order, const std::string& dataset,
                     const std::vector<T>& local, std::vector<std::uint64_t> trailing = {}) {
  write_node_rows(out, order, dataset, std::span<const T>(local), std::move(trailing));
}

// Writes an N x N sparse matrix whose local rows use internal global column indices, as anndata/scipy CSR in
// canonical order: rows routed, columns translated to canonical indices and sorted within each row (ties keep
// their input order).
void write_node_csr(H5Output& out, const CanonicalOrder& order, const std::string& group,
                    std::span<const std::int64_t> local_indptr, std::span<const std::int64_t> columns,
                    std::span<const double> data);

// Writes an N x N dense matrix (row-major, local rows, columns indexed by internal global index; small N only, as
// every rank looks up all N columns) with rows and columns in canonical order.
void write_node_dense_square(H5Output& out, const CanonicalOrder& order, const std::string& dataset,
                             std::span<const double> local);

// Variable-length rows (CSR pieces: the entries of local row i are [indptr[i], indptr[i+1])) on their way to this
// rank's canonical block. The plan is made once (one all-to-all of row headers); then each array of entries
// (columns, values, lengths: kept apart, never packed into records) moves with one all-to-all of its own.
class RaggedRoute {
 public:
  RaggedRoute(const CanonicalOrder& order, std::span<const std::int64_t> local_indptr);  // collective

  // indptr of this rank's canonical block, starting at 0.
  const std::vector<std::int64_t>& block_indptr() const { return block_indptr_; }
  // One array of entries, in local row order -> in canonical block row order (collective).
  template <class T>
  std::vector<T> move(std::span<const T> entries) const;
  template <class T>
  std::vector<T> move(const std::vector<T>& entries) const { return move(std::span<const T>(entries)); }

 private:
  const CanonicalOrder* order_;
  std::vector<std::int64_t> local_indptr_;
  std::vector<std::int64_t> send_rows_;  // local rows grouped by destination rank
  std::pair<std::int64_t, std::int64_t> own_rows_{0, 0};  // the range of send_rows_ that stays on this rank
  Counts entry_counts_;                    // entries sent to each rank (0 to this one)
  std::vector<std::int64_t> block_indptr_;
  std::vector<std::int64_t> received_at_;  // where each block row starts in the received entries (-1: own row)
};

// The rows of a block whose entries are out of order, with the stable order that sorts each: apply() then puts
// every array of the block (columns, values, ...) in that order. Rows are mostly sorted already (a rank's internal
// indices follow canonical order), so only the exceptions are stored.
class RowSort {
 public:
  // `before(a, b)`: entry a (an index into the block's arrays) goes before entry b. Ties keep their input order.
  template <class Before>
  RowSort(const std::vector<std::int64_t>& indptr, Before before);
  template <class T>
  void apply(std::vector<T>& entries) const;

 private:
  // Unsorted row r covers entries [begin_[r], begin_[r] + size); order_[offset_[r] ...] lists their indices in
  // sorted order (one flat array: random graphs leave most rows unsorted after translation).
  std::vector<std::int64_t> begin_, offset_{0}, order_;
};

// The global CSR indptr slice of this rank's block for H5Output::write_rows (the last rank adds the end).
std::vector<std::int64_t> global_indptr(const Communicator& comm, const std::vector<std::int64_t>& block_indptr);

// ---- templates ----

template <class T>
std::vector<T> CanonicalOrder::route_rows(std::span<const T> local, std::size_t width) const {
  if (internal_is_canonical_) return std::vector<T>(local.begin(), local.end());
  std::vector<std::int64_t> row_counts, order;
  plan(row_counts, order);
  std::vector<std::int64_t> index(order.size());
  std::vector<T> packed(order.size() * width);
  for (std::size_t k = 0; k < order.size(); ++k) {
    const auto i = static_cast<std::size_t>(order[k]);
    index[k] = graph_->canonical_index[i];
    std::copy_n(local.begin() + static_cast<std::ptrdiff_t>(i * width), width,
                packed.begin() + static_cast<std::ptrdiff_t>(k * width));
  }
  Counts value_counts(row_counts.size());
  for (std::size_t r = 0; r < row_counts.size(); ++r) value_counts[r] = row_counts[r] * static_cast<std::int64_t>(width);
  const std::vector<std::int64_t> got_index = comm_->alltoallv(index, row_counts);
  const std::vector<T> got = comm_->alltoallv(packed, value_counts);
  const std::int64_t first = blocks_.first(comm_->rank());
  std::vector<T> block(static_cast<std::size_t>(block_rows()) * width);
  for (std::size_t k = 0; k < got_index.size(); ++k)
    std::copy_n(got.begin() + static_cast<std::ptrdiff_t>(k * width), width,
                block.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(got_index[k] - first) * width));
  return block;
}

template <class T>
std::vector<T> RaggedRoute::move(std::span<const T> entries) const {
  if (order_->internal_is_canonical()) return std::vector<T>(entries.begin(), entries.end());
  // Only the other ranks' rows are packed and sent; own rows go straight from `entries` to their block position
  // (on a partition that follows the id order most rows stay). The block is allocated once the send buffer is
  // freed, so it can reuse those pages.
  std::int64_t outgoing = 0;
  for (const std::int64_t c : entry_counts_) outgoing += c;
  auto rows_of = [&](std::int64_t k) {
    const auto i = static_cast<std::size_t>(send_rows_[static_cast<std::size_t>(k)]);
    return entries.subspan(static_cast<std::size_t>(local_indptr_[i]),
                           static_cast<std::size_t>(local_indptr_[i + 1] - local_indptr_[i]));
  };
  std::vector<T> packed(static_cast<std::size_t>(outgoing));
  T* next = packed.data();
  for (std::int64_t k = 0; k < static_cast<std::int64_t>(send_rows_.size()); ++k)
    if (k < own_rows_.first || k >= own_rows_.second) {
      const auto row = rows_of(k);
      next = std::copy(row.begin(), row.end(), next);
    }
  const std::vector<T> got = order_->comm().alltoallv(packed, entry_counts_);
  packed = {};
  std::vector<T> block(static_cast<std::size_t>(block_indptr_.back()));
  const auto& canonical = order_->graph_->canonical_index;
  const std::int64_t first = order_->blocks().first(order_->comm().rank());
  for (std::int64_t k = own_rows_.first; k < own_rows_.second; ++k) {
    const auto at = static_cast<std::size_t>(canonical[static_cast<std::size_t>(send_rows_[static_cast<std::size_t>(k)])] - first);
    const auto row = rows_of(k);
    std::copy(row.begin(), row.end(), block.begin() + block_indptr_[at]);
  }
  for (std::size_t row = 0; row + 1 < block_indptr_.size(); ++row)
    if (received_at_[row] >= 0)
      std::copy_n(got.begin() + received_at_[row], block_indptr_[row + 1] - block_indptr_[row],
                  block.begin() + block_indptr_[row]);
  return block;
}

template <class Before>
RowSort::RowSort(const std::vector<std::int64_t>& indptr, Before before) {
  order_.reserve(static_cast<std::size_t>(indptr.back()));  // address space only: pages are touched when used
  for (std::size_t row = 0; row + 1 < indptr.size(); ++row) {
    const std::int64_t begin = indptr[row], end = indptr[row + 1];
    bool sorted = true;
    for (std::int64_t k = begin + 1; k < end && sorted; ++k) sorted = !before(k, k - 1);
    if (sorted) continue;
    const auto at = static_cast<std::ptrdiff_t>(order_.size());
    order_.resize(order_.size() + static_cast<std::size_t>(end - begin));
    std::iota(order_.begin() + at, order_.end(), begin);
    if (end - begin <= 32) {  // insertion sort: stable, and no buffer per call as std::stable_sort takes
      for (auto it = order_.begin() + at; it != order_.end(); ++it)
        for (auto j = it; j != order_.begin() + at && before(*j, *(j - 1)); --j) std::iter_swap(j, j - 1);
    } else {
      std::stable_sort(order_.begin() + at, order_.end(), before);
    }
    begin_.push_back(begin);
    offset_.push_back(static_cast<std::int64_t>(order_.size()));
  }
}

template <class T>
void RowSort::apply(std::vector<T>& entries) const {
  std::vector<T> scratch;
  for (std::size_t r = 0; r < begin_.size(); ++r) {
    scratch.clear();
    for (std::int64_t k = offset_[r]; k < offset_[r + 1]; ++k)
      scratch.push_back(entries[static_cast<std::size_t>(order_[static_cast<std::size_t>(k)])]);
    std::copy(scratch.begin(), scratch.end(), entries.begin() + begin_[r]);
  }
}

template <class T>
void write_node_rows(H5Output& out, const CanonicalOrder& order, const std::string& dataset,
                     std::span<const T> local, std::vector<std::uint64_t> trailing) {
  std::size_t width = 1;
  for (auto t : trailing) width *= static_cast<std::size_t>(t);
  const auto values = order.n_global() * static_cast<std::int64_t>(width);
  const PhaseStep step("write       " + dataset + ": " + std::to_string(order.n_global()) + " rows of " + std::to_string(width) +
                           ", " + fmt(1e-6 * static_cast<double>(sizeof(T)) * static_cast<double>(values), 0) + " MB" +
                           (order.internal_is_canonical() ? "" : ", routed to canonical order"),
                       slow_output(values));
  if (order.internal_is_canonical()) {
    out.write_rows<T>(dataset, local, std::move(trailing));
    return;
  }
  const std::vector<T> block = order.route_rows(local, width);
  out.write_rows<T>(dataset, block, std::move(trailing));
}

}  // namespace graphrf
