#include "graphrf/graph/laplacian_operator.hpp"

#include <algorithm>
#include <memory>
#include <span>

#include "graphrf/core/prefetch.hpp"

namespace graphrf {

namespace {
// How many arcs ahead the neighbour rows are prefetched. On graphs without locality (random graphs,
// expanders) every arc's row is a cache miss; issuing it this far ahead keeps several misses in flight
// instead of one, like the walk engine's lanes. On grids and meshes the rows are already cached and the
// prefetches cost a few instructions per arc.
constexpr std::int64_t kPrefetchArcs = 8;

// Calls finish(i, acc) for every owned row i with acc[c] = sum_j w_ij x_j[c] over the row's neighbours in
// canonical order (the CSR order), x given as row-major panels: owned rows `rows`, ghost rows `ghosts`.
// The summation order is fixed by the CSR, so results do not depend on the prefetching.
template <class Finish>
void for_each_neighbour_sum(const DistributedGraph& g, const std::vector<double>& weight,
                            const std::vector<std::int64_t>& source, const double* rows, const double* ghosts,
                            Eigen::Index b, Finish&& finish) {
  std::vector<double> acc_storage(static_cast<size_t>(b));
  double* __restrict acc = acc_storage.data();
  const auto row_of = [&](std::int64_t k) {
    const std::int64_t s = source[static_cast<size_t>(k)];
    return s >= 0 ? rows + s * b : ghosts + (-1 - s) * b;
  };
  const std::int64_t arcs = g.row_ptr[static_cast<size_t>(g.n_local())];
  const std::int64_t row_bytes = static_cast<std::int64_t>(b) * static_cast<std::int64_t>(sizeof(double));
  for (std::int64_t i = 0; i < g.n_local(); ++i) {
    for (Eigen::Index c = 0; c < b; ++c) acc[c] = 0.0;
    for (auto k = g.row_ptr[static_cast<size_t>(i)]; k < g.row_ptr[static_cast<size_t>(i) + 1]; ++k) {
      if (k + kPrefetchArcs < arcs) {
        prefetch_row(row_of(k + kPrefetchArcs), row_bytes);
      }
      const double w = weight[static_cast<size_t>(k)];
      const double* __restrict xr = row_of(k);
      for (Eigen::Index c = 0; c < b; ++c) acc[c] += w * xr[c];
    }
    finish(i, acc);
  }
}

// Every ghost row, by message or (host peers' rows) through the host's shared window.
std::unique_ptr<double[]> exchange_ghost_rows(const DistributedGraph& g, const double* rows, Eigen::Index b) {
  const size_t count = g.ghosts.size() * static_cast<size_t>(b);
  auto ghosts = std::make_unique_for_overwrite<double[]>(count);
  g.ghost_exchange.exchange<double>(std::span<const double>(rows, static_cast<size_t>(g.n_local() * b)),
                                    std::span<double>(ghosts.get(), count), static_cast<int>(b), g.hosts);
  return ghosts;
}

// Only the ghost rows other hosts own: the slots of host peers' ghosts stay unwritten (and untouched).
std::unique_ptr<double[]> exchange_rows_between_hosts(const DistributedGraph& g, const double* rows, Eigen::Index b) {
  const size_t count = g.ghosts.size() * static_cast<size_t>(b);
  auto ghosts = std::make_unique_for_overwrite<double[]>(count);
  const auto w = static_cast<size_t>(b);
  g.ghost_exchange.exchange_rows_between_hosts<double>(
      [&](std::int64_t local, double* out) { std::copy_n(rows + local * b, w, out); }, std::span<double>(ghosts.get(), count),
      static_cast<int>(b), *g.hosts);
  return ghosts;
}

// Where a host shares its panels: the arcs' sources re-keyed to the host's rows. A neighbour owned by any rank
// of my host is its row in the host panel (the host's rows are one consecutive range of global indices, rank
// after rank, as the panel's slices are), >= 0; other hosts' nodes keep their ghost slot (-1 - slot).
struct HostSources {
  std::vector<std::int64_t> source;
  std::int64_t rows_before_mine = 0;  // host rows held by the host ranks before me
};
HostSources host_sources(const DistributedGraph& g, const std::vector<std::int64_t>& source) {
  const HostTopology& hosts = *g.hosts;
  const int last_rank = hosts.end_rank(hosts.index()) - 1;
  const std::int64_t host_first = g.dist.first(hosts.first_rank(hosts.index()));
  const std::int64_t host_end = g.dist.first(last_rank) + g.dist.count(last_rank);
  HostSources h;
  h.rows_before_mine = g.first() - host_first;
  h.source.resize(source.size());
  for (size_t k = 0; k < source.size(); ++k) {
    const std::int64_t s = source[k];
    const std::int64_t global = s >= 0 ? g.first() + s : g.ghosts[static_cast<size_t>(-1 - s)];
    h.source[k] = global >= host_first && global < host_end ? global - host_first : s;
  }
  return h;
}

// The diagonal s_i of L: 1 (normalised) or the weighted degree d_i (combinatorial).
double diagonal_of(const DistributedGraph& g, bool combinatorial, std::int64_t i) {
  return combinatorial ? g.degree[static_cast<size_t>(i)] : 1.0;
}

// The fused step's row update; the two flags are compile-time so the inner loop has no branches.
template <bool kSubtractPrev, bool kAccumulate>
void fused_rows(const DistributedGraph& g, bool combinatorial, const std::vector<std::int64_t>& source,
                const HostSources* host, const double* cur, const double* prev, double* next, double* out, Eigen::Index b, double scale,
                double shift, double coeff) {
  // cur in a host panel (host != null): host peers' rows are read in place, only other hosts' rows are copied.
  const std::unique_ptr<double[]> ghosts = host ? exchange_rows_between_hosts(g, cur, b) : exchange_ghost_rows(g, cur, b);
  const double* rows = host ? cur - host->rows_before_mine * b : cur;
  const auto& weight = combinatorial ? g.weight : g.normalized_weight;
  for_each_neighbour_sum(g, weight, host ? host->source : source, rows, ghosts.get(), b,
                         [&](std::int64_t i, const double* __restrict acc) {
    const double* __restrict ci = cur + i * b;
    const double diagonal = diagonal_of(g, combinatorial, i);
    for (Eigen::Index c = 0; c < b; ++c) {
      const double lx = diagonal * ci[c] - acc[c];  // (L cur)_ic, as apply computes it
      double v = scale * (lx - shift * ci[c]);
      if constexpr (kSubtractPrev) v -= prev[i * b + c];
      next[i * b + c] = v;
      if constexpr (kAccumulate) out[i * b + c] += coeff * v;
    }
  });
}

// L = I - D^-1/2 A D^-1/2 (normalised) or D - A (combinatorial): y_i = s_i x_i - sum_j w_ij x_j.
DistributedOperator laplacian_operator(const DistributedGraph& g, bool combinatorial) {
  DistributedOperator op;
  op.comm = g.comm;
  op.n_global = g.n_global();
  op.first_row = g.first();
  op.n_local = g.n_local();
  op.row_keys = g.canonical_index;
  // Where each arc's neighbour row lives: >= 0 owned local row, < 0 ghost slot (-1 - slot). Computed once.
  auto source = std::make_shared<std::vector<std::int64_t>>(g.arc_sources());
  op.apply = [&g, source, combinatorial](const Eigen::MatrixXd& x, Eigen::MatrixXd& y) {
    const Eigen::Index b = x.cols();
    // Ghost exchange of whole rows: pack rows contiguously (Eigen is column-major).
    const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> rows = x;
    const std::unique_ptr<double[]> ghosts = exchange_ghost_rows(g, rows.data(), b);
    y.resize(x.rows(), b);
    const auto& weight = combinatorial ? g.weight : g.normalized_weight;
    for_each_neighbour_sum(g, weight, *source, rows.data(), ghosts.get(), b, [&](std::int64_t i, const double* acc) {
      const double diagonal = diagonal_of(g, combinatorial, i);
      for (Eigen::Index c = 0; c < b; ++c) y(i, c) = diagonal * x(i, c) - acc[c];
    });
  };
  // Ranks of a host of several keep the recurrence's panels in the host's shared memory (new_host_panel), and the
  // fused step then reads host peers' rows in place: no copies into and out of the ghost exchange's window, and
  // no ghost array for them.
  std::shared_ptr<const HostSources> host;
  if (g.hosts && g.hosts->size() > 1) {
    host = std::make_shared<const HostSources>(host_sources(g, *source));
    op.new_host_panel = [&g](Eigen::Index b) { return SharedArray<double>(g.hosts->host(), g.n_local() * b); };
  }
  op.fused_step = [&g, source, host, combinatorial](const double* cur, const double* prev, double* next, double* out,
                                                    Eigen::Index b, double scale, double shift, double coeff) {
    const HostSources* h = host.get();
    if (prev && out) fused_rows<true, true>(g, combinatorial, *source, h, cur, prev, next, out, b, scale, shift, coeff);
    else if (prev) fused_rows<true, false>(g, combinatorial, *source, h, cur, prev, next, out, b, scale, shift, coeff);
    else if (out) fused_rows<false, true>(g, combinatorial, *source, h, cur, prev, next, out, b, scale, shift, coeff);
    else fused_rows<false, false>(g, combinatorial, *source, h, cur, prev, next, out, b, scale, shift, coeff);
  };
  return op;
}
}  // namespace

DistributedOperator normalized_laplacian_operator(const DistributedGraph& g) { return laplacian_operator(g, false); }

DistributedOperator combinatorial_laplacian_operator(const DistributedGraph& g) { return laplacian_operator(g, true); }

}  // namespace graphrf
