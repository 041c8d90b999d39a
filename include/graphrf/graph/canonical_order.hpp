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
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "graphrf/graph/distributed_graph.hpp"
#include "graphrf/io/h5_output.hpp"
#include "graphrf/mpi/block_distribution.hpp"
#include "graphrf/mpi/phase_progress.hpp"

namespace graphrf {

// A variable-length row per node (CSR pieces) after routing: this rank's canonical block.
template <class Entry>
struct CanonicalRaggedBlock {
  std::vector<std::int64_t> indptr;  // block rows + 1, starting at 0
  std::vector<Entry> entries;
};

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
  std::vector<std::int64_t> to_canonical(std::span<const std::int64_t> globals) const;

  // Fixed-width rows (row-major, `width` values per local row, local row order) -> this rank's canonical block.
  template <class T>
  std::vector<T> route_rows(std::span<const T> local, std::size_t width) const;

  // Variable-length rows: entries of local row i are [indptr[i], indptr[i+1]) -> this rank's canonical block.
  template <class Entry>
  CanonicalRaggedBlock<Entry> route_ragged(std::span<const std::int64_t> local_indptr,
                                           std::span<const Entry> entries) const;

 private:
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

// Sparse rows whose entries carry a `column` member holding an internal global index: routed to this rank's
// canonical block with `column` translated to the canonical index and each row sorted by `before` (a strict weak
// order on entries, e.g. by column, then by length; ties keep their input order).
template <class Entry, class Before>
CanonicalRaggedBlock<Entry> route_sparse_rows(const CanonicalOrder& order, std::span<const std::int64_t> local_indptr,
                                              std::vector<Entry> entries, Before before);

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

template <class Entry>
CanonicalRaggedBlock<Entry> CanonicalOrder::route_ragged(std::span<const std::int64_t> local_indptr,
                                                         std::span<const Entry> entries) const {
  if (internal_is_canonical_)
    return {std::vector<std::int64_t>(local_indptr.begin(), local_indptr.end()),
            std::vector<Entry>(entries.begin(), entries.end())};
  std::vector<std::int64_t> row_counts, order;
  plan(row_counts, order);
  // Per row: (canonical index, length); then the entries, rows in the same order.
  std::vector<std::int64_t> header(2 * order.size());
  std::vector<Entry> packed;
  packed.reserve(entries.size());
  Counts entry_counts(row_counts.size(), 0), header_counts(row_counts.size());
  std::size_t k = 0;
  for (std::size_t r = 0; r < row_counts.size(); ++r) {
    header_counts[r] = 2 * row_counts[r];
    for (std::int64_t j = 0; j < row_counts[r]; ++j, ++k) {
      const auto i = static_cast<std::size_t>(order[k]);
      const std::int64_t begin = local_indptr[i], end = local_indptr[i + 1];
      header[2 * k] = graph_->canonical_index[i];
      header[2 * k + 1] = end - begin;
      packed.insert(packed.end(), entries.begin() + begin, entries.begin() + end);
      entry_counts[r] += end - begin;
    }
  }
  const std::vector<std::int64_t> got_header = comm_->alltoallv(header, header_counts);
  const std::vector<Entry> got = comm_->alltoallv(packed, entry_counts);
  const std::int64_t first = blocks_.first(comm_->rank());
  const std::size_t rows = static_cast<std::size_t>(block_rows());
  CanonicalRaggedBlock<Entry> block;
  block.indptr.assign(rows + 1, 0);
  std::vector<std::int64_t> source(rows, 0);  // where each canonical row starts in `got`
  std::int64_t offset = 0;
  for (std::size_t m = 0; m < got_header.size() / 2; ++m) {
    const auto row = static_cast<std::size_t>(got_header[2 * m] - first);
    block.indptr[row + 1] = got_header[2 * m + 1];
    source[row] = offset;
    offset += got_header[2 * m + 1];
  }
  for (std::size_t row = 0; row < rows; ++row) block.indptr[row + 1] += block.indptr[row];
  block.entries.resize(got.size());
  for (std::size_t row = 0; row < rows; ++row)
    std::copy_n(got.begin() + source[row], block.indptr[row + 1] - block.indptr[row],
                block.entries.begin() + block.indptr[row]);
  return block;
}

template <class Entry, class Before>
CanonicalRaggedBlock<Entry> route_sparse_rows(const CanonicalOrder& order, std::span<const std::int64_t> local_indptr,
                                              std::vector<Entry> entries, Before before) {
  if (!order.internal_is_canonical()) {
    std::vector<std::int64_t> columns(entries.size());
    for (std::size_t k = 0; k < entries.size(); ++k) columns[k] = entries[k].column;
    const std::vector<std::int64_t> canonical = order.to_canonical(columns);
    for (std::size_t k = 0; k < entries.size(); ++k) entries[k].column = canonical[k];
  }
  CanonicalRaggedBlock<Entry> block = order.internal_is_canonical()
                                          ? CanonicalRaggedBlock<Entry>{{local_indptr.begin(), local_indptr.end()},
                                                                        std::move(entries)}
                                          : order.route_ragged<Entry>(local_indptr, entries);
  // Rows are mostly sorted already (a rank's internal indices follow canonical order): skip sorted rows, and sort
  // short ones by insertion (stable, without the buffer std::stable_sort allocates per call).
  for (std::size_t row = 0; row + 1 < block.indptr.size(); ++row) {
    const auto begin = block.entries.begin() + block.indptr[row], end = block.entries.begin() + block.indptr[row + 1];
    if (std::is_sorted(begin, end, before)) continue;
    if (end - begin > 32) {
      std::stable_sort(begin, end, before);
      continue;
    }
    for (auto it = begin; it != end; ++it)
      for (auto j = it; j != begin && before(*j, *(j - 1)); --j) std::iter_swap(j, j - 1);
  }
  return block;
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
