#include "graphrf/grf/grf_output.hpp"

#include "graphrf/graph/canonical_order.hpp"
#include "graphrf/graph/graph_output.hpp"
#include "graphrf/io/report_output.hpp"

namespace graphrf {

namespace {

// Results of the walks (the same for any launch) under `group`; what depends on the launch (per-rank traffic,
// times, hops that crossed ranks) under /launch`group`. "walkers" means walkers per node everywhere (the
// --walkers option); the total is "walks".
void write_walk_statistics(H5Output& out, const std::string& group, const WalkStatistics& s, std::int64_t walkers_per_node) {
  out.write_replicated<std::int64_t>(group + "/length_histogram", s.length_histogram);
  out.set_attribute(group, "walks", s.walkers);
  out.set_attribute(group, "walkers_per_node", walkers_per_node);
  out.set_attribute(group, "hops", s.hops);
  out.set_attribute(group, "dead_ends", s.dead_ends);
  out.set_attribute(group, "truncated", s.truncated);
  const std::string launch = "/launch" + group;
  out.write_per_rank<std::int64_t>(launch + "/messages_sent", s.messages_sent);
  out.write_per_rank<std::int64_t>(launch + "/bytes_sent", s.bytes_sent);
  out.write_per_rank<double>(launch + "/walk_seconds", s.walk_seconds);
  out.set_attribute(launch, "cross_rank_hops", s.cross_rank_hops);
}

// True when the entries of every row are in ascending (column, length) order.
bool rows_sorted_by_column_and_length(const LengthResolvedGrf& m) {
  for (std::size_t row = 0; row + 1 < m.indptr.size(); ++row)
    for (auto k = static_cast<std::size_t>(m.indptr[row]) + 1; k < static_cast<std::size_t>(m.indptr[row + 1]); ++k)
      if (m.col[k] < m.col[k - 1] || (m.col[k] == m.col[k - 1] && m.length[k] < m.length[k - 1])) return false;
  return true;
}

// M_t in canonical order: rows routed, columns translated, entries sorted by column, then length. When the internal
// order is the canonical one and the rows are sorted already (one rank, block partitions), the arrays are written
// as they are, without copies.
void write_length_resolved(H5Output& out, const CanonicalOrder& order, const std::string& group,
                           const LengthResolvedGrf& m) {
  if (order.internal_is_canonical() && rows_sorted_by_column_and_length(m)) {
    out.write_rows<std::int64_t>(group + "/indptr", global_indptr(order.comm(), m.indptr));
    out.write_rows<std::int64_t>(group + "/indices", m.col);
    out.write_rows<std::int32_t>(group + "/length", m.length);
    out.write_rows<double>(group + "/data", m.value);
    return;
  }
  const RaggedRoute route(order, m.indptr);
  std::vector<std::int64_t> indices = route.move<std::int64_t>(order.to_canonical(m.col));
  std::vector<std::int32_t> length = route.move(m.length);
  std::vector<double> value = route.move(m.value);
  const RowSort sort(route.block_indptr(), [&](std::int64_t a, std::int64_t b) {
    const auto i = static_cast<std::size_t>(a), j = static_cast<std::size_t>(b);
    return indices[i] != indices[j] ? indices[i] < indices[j] : length[i] < length[j];
  });
  sort.apply(indices);
  sort.apply(length);
  sort.apply(value);
  out.write_rows<std::int64_t>(group + "/indptr", global_indptr(order.comm(), route.block_indptr()));
  out.write_rows<std::int64_t>(group + "/indices", indices);
  out.write_rows<std::int32_t>(group + "/length", length);
  out.write_rows<double>(group + "/data", value);
}

}  // namespace

void write_grf(H5Output& out, const DistributedGraph& g, const GrfRun& run, const KernelSpec& kernel,
               const WalkOptions& walk, bool with_by_length) {
  const CanonicalOrder order(g);
  const std::int64_t n = g.n_global();
  for (size_t e = 0; e < run.phi.size(); ++e) {
    const std::string name = e == 0 ? "/grf" : "/grf" + std::to_string(e + 1);
    const SparseRows& phi = run.phi[e];
    write_node_csr(out, order, name, phi.indptr, phi.col, phi.value);
    if (with_by_length) {
      const std::string by_length = e == 0 ? "/grf_by_length" : "/grf" + std::to_string(e + 1) + "_by_length";
      write_length_resolved(out, order, by_length, run.by_length[e]);
      const std::int64_t shape[2] = {n, n};
      out.set_attribute(by_length, "shape", std::span<const std::int64_t>(shape, 2));
      out.set_attribute(by_length, "max_length", walk.max_length);
      out.set_attribute(by_length, "description",
                        std::string("M_t[i, q] = (1/n) sum of loads of walks from i at q after t hops; Phi = sum_t f_t M_t"));
    }
    write_walk_statistics(out, e == 0 ? "/walks" : "/walks" + std::to_string(e + 1), run.walks[e], walk.walkers);
  }
  out.write_replicated<double>("/kernel/f", run.f);
  out.write_replicated<double>("/kernel/alpha", run.alpha);
  out.set_attribute("/kernel", "description", describe(kernel));
  out.set_attribute("/kernel", "estimator", std::string(estimator_name(run.estimator)));
  out.set_attribute("/kernel", "weights", std::string(weight_mode_name(walk.weights)));
  // f and alpha are coefficients of powers of W = I - (D - A)/d_max: d_max is needed to read them.
  if (walk.weights == WeightMode::combinatorial) out.set_attribute("/kernel", "max_degree", walk.max_degree);
}

void write_grf_result(H5Output& out, const DistributedGraph& g, const GrfResult& result, const GrfRunOptions& options) {
  write_nodes(out, g);
  write_grf(out, g, result.run, options.kernel, options.walk, options.by_length);
  out.set_attribute("/grf", "nnz_per_row_min", result.nnz.min);
  write_report(out, result.report);
}

}  // namespace graphrf
