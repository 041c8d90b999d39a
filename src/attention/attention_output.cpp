#include "graphrf/attention/attention_output.hpp"

#include "graphrf/graph/canonical_order.hpp"
#include "graphrf/graph/graph_output.hpp"
#include "graphrf/grf/grf_output.hpp"

namespace graphrf {

namespace {

// Per-head matrices (n_local x c) interleaved into rows of H x c, the layout of an N x H x c dataset.
std::vector<double> interleave_heads(const std::vector<RowMatrix>& per_head) {
  const auto n = per_head.empty() ? 0 : per_head[0].rows(), c = per_head.empty() ? 0 : per_head[0].cols();
  std::vector<double> out(static_cast<size_t>(n * c) * per_head.size());
  for (Eigen::Index i = 0; i < n; ++i)
    for (size_t h = 0; h < per_head.size(); ++h)
      for (Eigen::Index x = 0; x < c; ++x)
        out[static_cast<size_t>(i) * per_head.size() * static_cast<size_t>(c) + h * static_cast<size_t>(c) + static_cast<size_t>(x)] = per_head[h](i, x);
  return out;
}

}  // namespace

void write_attention(H5Output& out, const DistributedGraph& g, const AttentionRun& run) {
  const QkvRows& qkv = run.qkv;
  const std::vector<HeadResult>& heads = run.heads;
  const AttentionConfig& config = run.options.config;
  write_nodes(out, g);
  const CanonicalOrder order(g);
  std::vector<RowMatrix> outputs, linears;
  for (const auto& r : heads) {
    outputs.push_back(r.output);
    linears.push_back(r.linear);
  }
  const bool multi = qkv.heads > 1;
  const std::vector<std::uint64_t> trailing = multi ? std::vector<std::uint64_t>{static_cast<std::uint64_t>(qkv.heads), static_cast<std::uint64_t>(qkv.dv)}
                                                    : std::vector<std::uint64_t>{static_cast<std::uint64_t>(qkv.dv)};
  write_node_rows<double>(out, order, "/attention/output", interleave_heads(outputs), trailing);
  write_node_rows<double>(out, order, "/attention/linear_unmasked", interleave_heads(linears), trailing);
  const std::string axes = multi ? "node, head, value" : "node, value";  // rows in /nodes/id order
  out.set_attribute("/attention/output", "axes", axes);
  out.set_attribute("/attention/linear_unmasked", "axes", axes);
  std::vector<std::int64_t> nnz(static_cast<size_t>(g.n_local()) * heads.size());
  for (std::int64_t i = 0; i < g.n_local(); ++i)
    for (size_t h = 0; h < heads.size(); ++h)
      nnz[static_cast<size_t>(i) * heads.size() + h] =
          heads[h].grf.phi[0].indptr[static_cast<size_t>(i) + 1] - heads[h].grf.phi[0].indptr[static_cast<size_t>(i)];
  write_node_rows<std::int64_t>(out, order, "/attention/stats/nnz_per_row", nnz, multi ? std::vector<std::uint64_t>{heads.size()} : std::vector<std::uint64_t>{});
  std::vector<double> den_min, key_s, query_s;
  std::int64_t bytes = 0, bad = 0;
  for (const auto& r : heads) {
    den_min.push_back(r.stats.denominator_min);
    key_s.push_back(r.stats.key_seconds);
    query_s.push_back(r.stats.query_seconds);
    bytes += r.stats.bytes_moved;
    bad += r.stats.bad_rows;
  }
  out.write_replicated<double>("/attention/stats/denominator_min", den_min);
  out.write_replicated<double>("/launch/attention/key_pass_seconds", key_s);
  out.write_replicated<double>("/launch/attention/query_pass_seconds", query_s);
  out.write_per_rank<std::int64_t>("/launch/attention/bytes_moved", bytes);
  out.set_attribute("/attention/stats", "bad_rows", bad);
  if (heads.front().importance_sigma.size() > 0) {  // --draw importance: the Sigma* of every head
    std::vector<double> sigma;
    for (const auto& r : heads) sigma.insert(sigma.end(), r.importance_sigma.data(), r.importance_sigma.data() + r.importance_sigma.size());
    const auto d = static_cast<std::uint64_t>(run.qkv.d);
    out.write_replicated<double>("/attention/importance_sigma", sigma,
                                 multi ? std::vector<std::uint64_t>{static_cast<std::uint64_t>(run.qkv.heads), d, d} : std::vector<std::uint64_t>{d, d});
  }
  out.set_attribute("/attention", "feature", std::string(feature_kind_name(config.features.kind)));
  out.set_attribute("/attention", "estimator", std::string(estimator_name(config.estimator)));
  if (run.options.save_grf) write_grf(out, g, heads[0].grf, heads[0].kernel, config.walk, run.options.by_length);
}

}  // namespace graphrf
