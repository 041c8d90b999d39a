#include "graphrf/gp/grf_feature_operator.hpp"

#include <algorithm>
#include <memory>
#include <tuple>

#include "graphrf/core/error.hpp"
#include "graphrf/core/prefetch.hpp"
#include "graphrf/graph/canonical_order.hpp"
#include "graphrf/mpi/host_alltoallv.hpp"

namespace graphrf {

namespace {

// One nonzero M_t[i, q] seen from the node that stores it (`node`, a global index owned by the receiving rank).
struct SideEntry {
  std::int64_t node;
  std::int64_t other;            // global index of the other node
  std::int64_t other_canonical;  // its canonical index: the summation order
  std::int32_t length;
  double value;
};

template <class SideT>
SideT build_side(const DistributedGraph& g, std::vector<SideEntry> entries) {
  std::sort(entries.begin(), entries.end(), [](const SideEntry& a, const SideEntry& b) {
    return std::tie(a.node, a.other_canonical, a.length) < std::tie(b.node, b.other_canonical, b.length);
  });
  SideT side;
  const std::int64_t n_local = g.n_local(), first = g.first();
  for (const auto& e : entries) {
    if (g.owns(e.other))
      side.local_rows.push_back(e.other - first);
    else
      side.remote.push_back(e.other);
  }
  for (auto* list : {&side.local_rows, &side.remote}) {
    std::sort(list->begin(), list->end());
    list->erase(std::unique(list->begin(), list->end()), list->end());
  }
  side.fetch = GhostExchange(*g.comm, g.dist, side.remote);
  const auto n_used = static_cast<std::int64_t>(side.local_rows.size());
  side.pair_ptr.assign(static_cast<size_t>(n_local) + 1, 0);
  side.entry_ptr.push_back(0);
  for (size_t k = 0; k < entries.size(); ++k) {
    const auto& e = entries[k];
    const bool new_pair = k == 0 || e.node != entries[k - 1].node || e.other != entries[k - 1].other;
    if (new_pair) {
      if (k > 0) side.entry_ptr.push_back(static_cast<std::int64_t>(k));
      ++side.pair_ptr[static_cast<size_t>(e.node - first) + 1];
      const auto& list = g.owns(e.other) ? side.local_rows : side.remote;
      const std::int64_t key = g.owns(e.other) ? e.other - first : e.other;
      side.pair_slot.push_back((g.owns(e.other) ? 0 : n_used) + (std::lower_bound(list.begin(), list.end(), key) - list.begin()));
    }
    side.entry_length.push_back(e.length);
    side.entry_value.push_back(e.value);
  }
  if (!entries.empty()) side.entry_ptr.push_back(static_cast<std::int64_t>(entries.size()));
  for (size_t i = 0; i < static_cast<size_t>(n_local); ++i) side.pair_ptr[i + 1] += side.pair_ptr[i];
  return side;
}

}  // namespace

GrfFeatureOperator::GrfFeatureOperator(const DistributedGraph& g, const LengthResolvedGrf& m)
    : graph_(&g), n_local_(g.n_local()) {
  const CanonicalOrder order(g);
  const std::vector<std::int64_t> col_canonical = order.to_canonical(m.col);
  std::vector<SideEntry> row_entries;
  row_entries.reserve(m.col.size());
  std::int32_t longest = 0;
  for (std::int64_t i = 0; i < m.n_local(); ++i)
    for (auto k = m.indptr[static_cast<size_t>(i)]; k < m.indptr[static_cast<size_t>(i) + 1]; ++k) {
      const auto u = static_cast<size_t>(k);
      row_entries.push_back({g.first() + i, m.col[u], col_canonical[u], m.length[u], m.value[u]});
      longest = std::max(longest, m.length[u]);
    }
  n_lengths_ = g.comm->max(longest) + 1;
  set_f({});  // f = 0 until the caller sets one
  rows_ = build_side<Side>(g, std::move(row_entries));
}

void GrfFeatureOperator::restrict_rows(const Eigen::VectorXd& mask) {
  const DistributedGraph& g = *graph_;
  const Communicator& comm = *g.comm;
  // The entries of S's rows, read back from rows_ (already in canonical order of their columns).
  std::vector<std::int64_t> others;
  std::vector<SideEntry> row_entries;
  for (std::int64_t i = 0; i < n_local_; ++i) {
    if (mask(i) == 0) continue;
    for (auto p = rows_.pair_ptr[static_cast<size_t>(i)]; p < rows_.pair_ptr[static_cast<size_t>(i) + 1]; ++p) {
      const std::int64_t other = rows_.other(rows_.pair_slot[static_cast<size_t>(p)], g.first());
      for (auto k = rows_.entry_ptr[static_cast<size_t>(p)]; k < rows_.entry_ptr[static_cast<size_t>(p) + 1]; ++k) {
        row_entries.push_back({g.first() + i, other, 0, rows_.entry_length[static_cast<size_t>(k)],
                               rows_.entry_value[static_cast<size_t>(k)]});
        others.push_back(other);
      }
    }
  }
  const std::vector<std::int64_t> other_canonical = CanonicalOrder(g).to_canonical(others);
  others = {};
  for (size_t k = 0; k < row_entries.size(); ++k) row_entries[k].other_canonical = other_canonical[k];
  // Transposed copies, grouped by the owner of the column.
  Counts counts(static_cast<size_t>(comm.size()), 0);
  for (const auto& e : row_entries) ++counts[static_cast<size_t>(g.owner(e.other))];
  std::vector<std::int64_t> offset(counts.size(), 0);
  for (size_t r = 1; r < counts.size(); ++r) offset[r] = offset[r - 1] + counts[r - 1];
  std::vector<SideEntry> to_owner(row_entries.size());
  for (const auto& e : row_entries) {
    const auto r = static_cast<size_t>(g.owner(e.other));
    to_owner[static_cast<size_t>(offset[r]++)] = {e.other, e.node, g.canonical_index[static_cast<size_t>(e.node - g.first())],
                                                  e.length, e.value};
  }
  std::vector<SideEntry> column_entries = host_alltoallv(comm, g.hosts.get(), to_owner, counts);
  to_owner = {};
  subset_built_ = true;
  // When S is every row on every rank, rows_ serves (same entries, same order). Agreed: a side's products are
  // collective (their row fetches), so every rank must use the same side.
  subset_is_all_ = comm.min((mask.array() != 0).all() ? 1 : 0) == 1;
  subset_rows_ = subset_is_all_ ? Side{} : build_side<Side>(g, std::move(row_entries));
  columns_ = build_side<Side>(g, std::move(column_entries));
}

void GrfFeatureOperator::set_f(std::span<const double> f) {
  f_.assign(static_cast<size_t>(n_lengths_), 0.0);
  std::copy_n(f.begin(), std::min<size_t>(f.size(), f_.size()), f_.begin());
  ++f_generation_;
}

const GrfFeatureOperator::Side& GrfFeatureOperator::weighted(const Side& side) const {
  if (side.weighted_generation == f_generation_) return side;
  side.pair_phi.resize(side.pair_slot.size());
  for (size_t p = 0; p < side.pair_phi.size(); ++p) {
    double phi = 0;
    for (auto k = side.entry_ptr[p]; k < side.entry_ptr[p + 1]; ++k)
      phi += f_[static_cast<size_t>(side.entry_length[static_cast<size_t>(k)])] * side.entry_value[static_cast<size_t>(k)];
    side.pair_phi[p] = phi;
  }
  side.weighted_generation = f_generation_;
  return side;
}

std::unique_ptr<double[]> GrfFeatureOperator::gather_rows(const Side& side, const Eigen::MatrixXd& local) const {
  const std::int64_t b = local.cols();
  const auto n_used = static_cast<std::int64_t>(side.local_rows.size());
  const auto n_remote = static_cast<std::int64_t>(side.remote.size());
  // Uninitialised: every value is written below (zeroing it first cost as much as the copy).
  auto table = std::make_unique_for_overwrite<double[]>(static_cast<size_t>((n_used + n_remote) * b));
  // Column-major to row-major in panels of rows, so that both sides stay in cache.
  constexpr std::int64_t kPanel = 64;
  for (std::int64_t s0 = 0; s0 < n_used; s0 += kPanel) {
    const std::int64_t s1 = std::min(n_used, s0 + kPanel);
    for (std::int64_t k = 0; k < b; ++k)
      for (std::int64_t s = s0; s < s1; ++s) table[static_cast<size_t>(s * b + k)] = local(side.local_rows[static_cast<size_t>(s)], k);
  }
  side.fetch.exchange_rows<double>(
      [&](std::int64_t i, double* out) {
        for (std::int64_t k = 0; k < b; ++k) out[k] = local(i, k);
      },
      std::span<double>(table.get() + n_used * b, static_cast<size_t>(n_remote * b)), static_cast<int>(b), graph_->hosts);
  return table;
}

Eigen::MatrixXd GrfFeatureOperator::apply(const Side& unweighted, const Eigen::MatrixXd& x) const {
  const Side& side = weighted(unweighted);
  const std::int64_t b = x.cols();
  const auto table = gather_rows(side, x);
  Eigen::MatrixXd out(n_local_, b);
  std::vector<double> sum(static_cast<size_t>(b));
  // On graphs without locality every pair's row of `table` is a cache miss: fetch the row of the pair
  // kPrefetchPairs ahead while this one is summed (as the Chebyshev filter's sparse product does).
  constexpr std::int64_t kPrefetchPairs = 8;
  const auto pairs = static_cast<std::int64_t>(side.pair_slot.size());
  const std::int64_t row_bytes = b * static_cast<std::int64_t>(sizeof(double));
  for (std::int64_t i = 0; i < n_local_; ++i) {
    std::fill(sum.begin(), sum.end(), 0.0);
    for (auto p = side.pair_ptr[static_cast<size_t>(i)]; p < side.pair_ptr[static_cast<size_t>(i) + 1]; ++p) {
      if (p + kPrefetchPairs < pairs)
        prefetch_row(table.get() + side.pair_slot[static_cast<size_t>(p + kPrefetchPairs)] * b, row_bytes);
      const double phi = side.pair_phi[static_cast<size_t>(p)];
      const double* row = table.get() + side.pair_slot[static_cast<size_t>(p)] * b;
      for (std::int64_t k = 0; k < b; ++k) sum[static_cast<size_t>(k)] += phi * row[k];
    }
    for (std::int64_t k = 0; k < b; ++k) out(i, k) = sum[static_cast<size_t>(k)];
  }
  return out;
}

Eigen::MatrixXd GrfFeatureOperator::times(const Eigen::MatrixXd& c) const { return apply(rows_, c); }

Eigen::MatrixXd GrfFeatureOperator::subset_times(const Eigen::MatrixXd& c) const { return apply(subset_rows(), c); }

Eigen::MatrixXd GrfFeatureOperator::transpose_times(const Eigen::MatrixXd& v) const {
  require_subset();
  return apply(columns_, v);
}

void GrfFeatureOperator::require_subset() const {
  if (!subset_built_) throw Error("GrfFeatureOperator: call restrict_rows before products with Phi_S or Phi_S^T");
}

Eigen::MatrixXd GrfFeatureOperator::length_resolved_forms(const Eigen::MatrixXd& v, const Eigen::MatrixXd& c) const {
  const std::int64_t b = c.cols();
  const Side& rows = subset_rows();
  const auto table = gather_rows(rows, c);
  Eigen::MatrixXd out = Eigen::MatrixXd::Zero(n_local_, n_lengths_);
  for (std::int64_t i = 0; i < n_local_; ++i)
    for (auto p = rows.pair_ptr[static_cast<size_t>(i)]; p < rows.pair_ptr[static_cast<size_t>(i) + 1]; ++p) {
      const double* row = table.get() + rows.pair_slot[static_cast<size_t>(p)] * b;
      double form = 0;  // v_i . C_q
      for (std::int64_t k = 0; k < b; ++k) form += v(i, k) * row[k];
      for (auto e = rows.entry_ptr[static_cast<size_t>(p)]; e < rows.entry_ptr[static_cast<size_t>(p) + 1]; ++e)
        out(i, rows.entry_length[static_cast<size_t>(e)]) += rows.entry_value[static_cast<size_t>(e)] * form;
    }
  return out;
}

Eigen::VectorXd GrfFeatureOperator::row_squared_norms() const {
  weighted(rows_);
  Eigen::VectorXd out = Eigen::VectorXd::Zero(n_local_);
  for (std::int64_t i = 0; i < n_local_; ++i)
    for (auto p = rows_.pair_ptr[static_cast<size_t>(i)]; p < rows_.pair_ptr[static_cast<size_t>(i) + 1]; ++p)
      out(i) += rows_.pair_phi[static_cast<size_t>(p)] * rows_.pair_phi[static_cast<size_t>(p)];
  return out;
}

}  // namespace graphrf
