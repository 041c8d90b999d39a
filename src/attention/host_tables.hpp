#pragma once
// The tables masked attention's passes share inside a host (masked_attention.cpp): slices of a host-wide array in a
// shared window (private for a rank alone on its host), the rows of S and z, and a row-wise pass whose rows host
// peers can take over.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "graphrf/attention/masked_attention.hpp"
#include "graphrf/core/huge_pages.hpp"
#include "graphrf/graph/distributed_graph.hpp"
#include "graphrf/grf/grf_matrix.hpp"
#include "graphrf/mpi/host_topology.hpp"
#include "graphrf/mpi/phase_progress.hpp"
#include "graphrf/mpi/shared_array.hpp"
#include "graphrf/walks/start_row_claims.hpp"

namespace graphrf {

// Columns of the key pass (rows of the query pass) a rank takes at a time; host peers take what a slower rank has
// left. About 64 claims a rank, and at most 1024 columns (about a millisecond of sums) so that the ranks finish
// close together.
inline std::int64_t work_per_claim(std::int64_t n_local) { return std::clamp<std::int64_t>(n_local / 64, 16, 1024); }

// Work units 0 .. n_local - 1 of every rank of the host, each done once by its owner or a host peer:
// do_range(host rank r, units of r) for claims of work_per_claim units, the owner's from the front, a peer's from
// the back once its own ran out (StartRowClaims). A rank alone on its host does its own in order. Progress is
// reported on `what`; peer_units counts the units this rank did for its peers. Collective over the host.
template <class DoRange>
void share_out(const DistributedGraph& g, const std::string& what, const DoRange& do_range, std::int64_t& peer_units) {
  const std::int64_t n_local = g.n_local(), per_claim = work_per_claim(n_local);
  PhaseProgress progress(what, n_local);
  if (!g.hosts || g.hosts->size() == 1) {
    for (std::int64_t i = 0; i < n_local; i += per_claim) {
      progress.step(i);
      do_range(0, RowRange{i, std::min(i + per_claim, n_local)});
    }
    return;
  }
  StartRowClaims claims(g.hosts->host(), n_local);
  std::int64_t done = 0;
  for (RowRange own; !(own = claims.claim_own(per_claim)).empty(); done += own.size()) {
    progress.step(done);
    do_range(g.hosts->host().rank(), own);
  }
  while (const auto peer = claims.claim_from_peer(per_claim / 4, per_claim)) {
    do_range(peer->peer, peer->rows);
    peer_units += peer->rows.size();
  }
}

// One slice of `count` elements per rank of a host-wide array: inside a host of several ranks the slices lie in a
// shared window, one after another in host rank order, and every rank reads (and may write) any of them in place;
// a rank alone on its host keeps its slice private. Both are read at random, so both come in 2 MiB pages where
// the kernel grants them (shared_array.hpp, huge_pages.hpp). Owners write their slices, then publish().
template <class T>
class HostSlices {
 public:
  HostSlices(const DistributedGraph& g, std::int64_t count) {
    if (g.hosts && g.hosts->size() > 1) {
      shared_ = SharedArray<T>(g.hosts->host(), count);
      mine_ = shared_.mine();
      base_ = shared_.data();
    } else {
      const auto n = static_cast<std::size_t>(count);  // not initialised: every element gets written
      private_ = std::unique_ptr<T[], HugeFree>(HugePageAllocator<T>().allocate(n), HugeFree{n});
      mine_ = base_ = private_.get();
    }
  }

  T* mine() const { return mine_; }
  // The whole array (every slice), and the index in it of host rank r's first element.
  T* data() const { return base_; }
  std::int64_t first(int host_rank) const { return shared_.data() ? shared_.first(host_rank) : 0; }
  // Collective over the host: every rank's slice is written and visible to its peers.
  void publish() const {
    if (shared_.data()) shared_.synchronize();
  }

 private:
  struct HugeFree {
    std::size_t count;
    void operator()(T* p) const { HugePageAllocator<T>().deallocate(p, count); }
  };
  SharedArray<T> shared_;
  std::unique_ptr<T[], HugeFree> private_;
  T* mine_ = nullptr;
  T* base_ = nullptr;
};

// A table with one row of `width` values per owned node that every rank of the host reads in place: inside a host
// of several ranks it lives in a shared window, so that a host peer's row is found by its index instead of being
// copied out of a window into a private table (S and z: 288 MB per rank on random:1000000:10 at np 2) and looked
// up by a binary search. A rank alone on its host keeps its rows private. Owners write their rows (or host peers
// write them for the owner, in the key pass), then publish().
class HostRows {
 public:
  HostRows(const DistributedGraph& g, std::int64_t width)
      : width_(width), first_(g.first()), host_first_(g.first()), host_end_(g.first() + g.n_local()),
        rows_(g, g.n_local() * width) {
    if (g.hosts && g.hosts->size() > 1) {
      const HostTopology& hosts = *g.hosts;
      host_first_ = g.dist.first(hosts.first_rank(hosts.index()));
      host_end_ = g.dist.first(hosts.end_rank(hosts.index()));
    }
    owned_ = std::span<double>(rows_.mine(), static_cast<size_t>(g.n_local() * width));
  }

  std::span<const double> owned() const { return owned_; }
  double* write_row(std::int64_t node) { return owned_.data() + (node - first_) * width_; }
  // Whether `node` lies on this rank's host (owned nodes included): then row() reads it.
  bool on_host(std::int64_t node) const { return node >= host_first_ && node < host_end_; }
  // The row of a node of this host (the slices lie one after another, in the order of the nodes).
  const double* row(std::int64_t node) const { return rows_.data() + (node - host_first_) * width_; }
  // The host's first row: every row of the host lies at a fixed distance from it.
  const double* table() const { return rows_.data(); }
  double* host_row(std::int64_t node) { return rows_.data() + (node - host_first_) * width_; }
  void publish() const { rows_.publish(); }

 private:
  std::int64_t width_, first_, host_first_, host_end_;
  HostSlices<double> rows_;
  std::span<double> owned_;
};

// A row-wise pass over the owned rows i of a sparse matrix (one output row of `out_width` values each, from the
// row's entries and feature row) that host peers can take part in: inside a host of several ranks the rows'
// starts, weights and features are copied to shared memory beside each entry's place in a host table (filled by
// the caller, then publish()), and the outputs are written there, so that a rank out of rows sums a slower peer's
// (share_out). A rank alone on its host reads its rows in place.
class HostRowPass {
 public:
  // Collective over the host. The outputs start zeroed.
  HostRowPass(const DistributedGraph& g, const SparseRows& rows, const RowMatrix& features, std::int64_t out_width)
      : g_(g), rows_(rows), features_(features), out_width_(out_width), sharing_(g.hosts && g.hosts->size() > 1),
        place_(g, static_cast<std::int64_t>(rows.col.size())), out_(g, g.n_local() * out_width) {
    const std::int64_t n = g.n_local(), nnz = static_cast<std::int64_t>(rows.col.size()), m = features.cols();
    std::fill_n(out_.mine(), n * out_width, 0.0);
    if (!sharing_) return;
    starts_.emplace(g, n + 1);
    weights_.emplace(g, nnz);
    shared_features_.emplace(g, n * m);
    std::copy_n(rows.indptr.data(), n + 1, starts_->mine());
    std::copy_n(rows.value.data(), nnz, weights_->mine());
    std::copy_n(features.data(), n * m, shared_features_->mine());
  }

  // Entry k's place in the host's table of what the pass reads: this rank fills them before publish().
  std::int64_t* places() { return place_.mine(); }
  // Collective over the host: this rank's rows are visible to its peers.
  void publish() const {
    place_.publish();
    out_.publish();
    if (!sharing_) return;
    starts_->publish();
    weights_->publish();
    shared_features_->publish();
  }

  // The rows of host rank r as sum_row reads and writes them.
  struct Rows {
    const std::int64_t* starts;
    const double* weights;
    const double* features;  // row i at features + i m
    const std::int64_t* place;
    double* out;             // row i at out + i out_width
    std::int64_t entries;    // of all the rank's rows
  };

  // Every row of the host summed once, by its owner or a host peer: sum_row(rows, i) for row i of `rows`.
  // Returns this rank's outputs; peer_rows counts the rows this rank summed for its peers. Collective.
  template <class SumRow>
  std::vector<double> run(const std::string& what, const SumRow& sum_row, std::int64_t& peer_rows) const {
    const std::int64_t n_local = g_.n_local();
    const auto sum_range = [&](int r, RowRange range) {
      const Rows rows = rows_of(r);
      for (std::int64_t i = range.begin; i < range.end; ++i) sum_row(rows, i);
    };
    share_out(g_, what, sum_range, peer_rows);
    out_.publish();
    return std::vector<double>(out_.mine(), out_.mine() + n_local * out_width_);
  }

 private:
  Rows rows_of(int r) const {
    if (!sharing_)
      return {rows_.indptr.data(), rows_.value.data(), features_.data(), place_.data(), out_.data(),
              static_cast<std::int64_t>(rows_.col.size())};
    return {starts_->data() + starts_->first(r), weights_->data() + weights_->first(r),
            shared_features_->data() + shared_features_->first(r), place_.data() + place_.first(r),
            out_.data() + out_.first(r), place_.first(r + 1) - place_.first(r)};
  }

  const DistributedGraph& g_;
  const SparseRows& rows_;
  const RowMatrix& features_;
  std::int64_t out_width_;
  bool sharing_;
  HostSlices<std::int64_t> place_;
  HostSlices<double> out_;
  std::optional<HostSlices<std::int64_t>> starts_;
  std::optional<HostSlices<double>> weights_, shared_features_;
};

}  // namespace graphrf
