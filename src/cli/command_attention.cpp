// `graphrf attention`: GRF-masked linear attention across ranks, with the unmasked linear baseline and,
// on small graphs, dense references (softmax, mask-weighted softmax and linear attention, and the GRF
// result computed densely).
#include <charconv>
#include <sstream>

#include "graphrf/attention/attention_pipeline.hpp"
#include "graphrf/attention/attention_reference.hpp"
#include "graphrf/cli/cli.hpp"
#include "graphrf/grf/dense_gather.hpp"
#include "graphrf/grf/dense_reference.hpp"
#include "graphrf/graph/canonical_order.hpp"
#include "graphrf/graph/graph_output.hpp"
#include "graphrf/grf/grf_output.hpp"
#include "graphrf/io/h5_output.hpp"
#include "graphrf/mpi/run_summary.hpp"
#include "graphrf/core/timer.hpp"

namespace graphrf {

void report_grf(const Log& log, const GrfRun& run, const NnzSummary& nnz, const WalkOptions& walk);

void add_attention_options(po::options_description& desc) {
  add_graph_options(desc);
  add_kernel_options(desc);
  add_walk_options(desc);
  desc.add_options()
      ("estimator", po::value<std::string>()->default_value("symmetric"), "symmetric (Alg. 1) | two-ensembles | asymmetric (Alg. 2)")
      ("qkv", po::value<std::string>(), "HDF5 with /q, /k (N x d or N x H x d) and /v; rows in ascending node-id order or with /nodes/id")
      ("synthetic", po::value<std::string>(), "seeded synthetic Q/K/V: d,d_v (default 8,8 when --qkv is absent)")
      ("heads", po::value<int>()->default_value(1), "heads of synthetic Q/K/V")
      ("head-betas", po::value<std::string>(), "beta of each head, comma-separated")
      ("shared-walks", po::bool_switch(), "one walk ensemble for all heads (their kernels differ only in f)")
      ("feature", po::value<std::string>()->default_value("relu"), "relu | elu1 | favor | trig | dark")
      ("num-features", po::value<int>()->default_value(0), "random features m (0: d)")
      ("draw", po::value<std::string>()->default_value("orthogonal"), "iid | orthogonal | orthogonal+pnc")
      ("antithetic", po::bool_switch(), "favor/dark: use -w for every w")
      ("relu-scale", po::bool_switch(), "relu: divide queries by sqrt(d)")
      ("relu-epsilon", po::value<double>()->default_value(1e-8), "added to relu features")
      ("stabilizer-epsilon", po::value<double>()->default_value(1e-6), "favor/dark stabiliser eps")
      ("feature-seed", po::value<std::uint64_t>(), "seed of the random features (default: --seed)")
      ("dark-ridge", po::value<double>()->default_value(0.0), "dark: Lambda + ridge I before the inverse square root")
      ("on-bad-normalizer", po::value<std::string>()->default_value("auto"),
       "error | clamp | skip (auto: error when f or the features can be negative, else clamp)")
      ("normalizer-eps", po::value<double>()->default_value(1e-12), "normalisers <= eps are bad")
      ("reference", po::bool_switch(), "dense references on small graphs, with their errors against the GRF result")
      ("save-grf", po::bool_switch(), "also write what `graphrf grf` writes")
      ("out", po::value<std::string>(), "HDF5 output (without it nothing is written)");
}

namespace {

std::vector<int> parse_ints(const std::string& option, const std::string& text) {
  std::vector<int> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    int v = 0;
    const auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (ec != std::errc() || ptr != item.data() + item.size() || v < 1)
      throw InputError(option + ": expected positive integers like 8,8 (got '" + text + "')");
    out.push_back(v);
  }
  return out;
}

std::vector<double> parse_doubles(const std::string& option, const std::string& text) {
  std::vector<double> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    double v = 0;
    const auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (ec != std::errc() || ptr != item.data() + item.size()) throw InputError(option + ": expected numbers (got '" + text + "')");
    out.push_back(v);
  }
  return out;
}

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

Eigen::MatrixXd gather_dense(const DistributedGraph& g, const RowMatrix& local) {
  return gather_dense_block(*g.comm, local, g.n_global());
}

struct ReferenceErrors {
  double softmax = 0, masked_softmax = 0, masked_linear = 0, grf_dense = 0, linear = 0;
};

// Dense references of one head on rank 0 (errors broadcast to all ranks).
ReferenceErrors reference_errors(const DistributedGraph& g, const QkvRows& qkv, int h, const HeadResult& r,
                                 const WalkOptions& walk) {
  const Communicator& comm = *g.comm;
  const Eigen::MatrixXd q = gather_dense(g, qkv.q[static_cast<size_t>(h)]), k = gather_dense(g, qkv.k[static_cast<size_t>(h)]),
                        v = gather_dense(g, qkv.v[static_cast<size_t>(h)]), pq = gather_dense(g, r.phi_q),
                        pk = gather_dense(g, r.phi_k), out = gather_dense(g, r.output), lin = gather_dense(g, r.linear);
  const Eigen::MatrixXd w = gather_dense_w(g, walk);
  const Eigen::MatrixXd estimate = dense_kernel_estimate(g, r.grf);
  ReferenceErrors e;
  if (comm.is_root()) {
    const Eigen::MatrixXd exact = kernel_matrix_exact(r.kernel, w);
    e.softmax = relative_error(out, softmax_attention(q, k, v));
    e.masked_softmax = relative_error(out, masked_softmax_attention(q, k, v, exact));
    e.masked_linear = relative_error(out, masked_linear_attention(pq, pk, v, exact));
    e.grf_dense = relative_error(out, masked_linear_attention(pq, pk, v, estimate));
    e.linear = relative_error(out, lin);
  }
  comm.broadcast(e);
  return e;
}

}  // namespace

int run_attention_command(const CommandContext& ctx) {
  const Communicator& comm = ctx.comm;
  const auto& vm = ctx.vm;
  GraphOptions graph_options;
  AttentionConfig config;
  std::string out_path, qkv_path;
  std::vector<int> synthetic = {8, 8};
  const bool reference = vm["reference"].as<bool>(), save_grf = vm["save-grf"].as<bool>();
  collective_try(comm, [&] {
    graph_options = graph_options_from(vm);
    config.kernel = kernel_spec_from(vm);
    config.walk = walk_options_from(vm);
    config.estimator = parse_estimator(vm["estimator"].as<std::string>());
    config.shared_walks = vm["shared-walks"].as<bool>();
    if (vm.count("head-betas")) config.head_betas = parse_doubles("--head-betas", vm["head-betas"].as<std::string>());
    config.features.kind = parse_feature_kind(vm["feature"].as<std::string>());
    config.features.m = vm["num-features"].as<int>();
    config.features.draw = parse_frequency_draw(vm["draw"].as<std::string>());
    config.features.antithetic = vm["antithetic"].as<bool>();
    config.features.relu_scale = vm["relu-scale"].as<bool>();
    config.features.relu_epsilon = vm["relu-epsilon"].as<double>();
    config.features.stabilizer_epsilon = vm["stabilizer-epsilon"].as<double>();
    config.features.seed = vm.count("feature-seed") ? vm["feature-seed"].as<std::uint64_t>() : config.walk.seed;
    config.dark_ridge = vm["dark-ridge"].as<double>();
    config.normalizer = vm["on-bad-normalizer"].as<std::string>();
    if (config.normalizer != "auto") parse_bad_normalizer(config.normalizer);
    config.normalizer_eps = vm["normalizer-eps"].as<double>();
    if (vm.count("qkv") && vm.count("synthetic")) throw InputError("--qkv and --synthetic: give one of them");
    if (vm.count("qkv")) qkv_path = vm["qkv"].as<std::string>();
    if (vm.count("synthetic")) synthetic = parse_ints("--synthetic", vm["synthetic"].as<std::string>());
    if (synthetic.size() != 2) throw InputError("--synthetic: expected d,d_v (e.g. 8,8)");
    if (vm["heads"].as<int>() < 1) throw InputError("--heads: must be >= 1");
    if (vm.count("out")) out_path = vm["out"].as<std::string>();
  });
  const Log& log = ctx.log;
  Timer total;
  const DistributedGraph g = load_graph_for_command(ctx, graph_options, out_path, reference);
  const QkvRows qkv = qkv_path.empty() ? synthetic_qkv(g, vm["heads"].as<int>(), synthetic[0], synthetic[1], config.walk.seed)
                                       : read_qkv(g, qkv_path);
  log.info("inputs      " + (qkv_path.empty() ? std::string("synthetic") : qkv_path) + ": " + std::to_string(qkv.heads) +
           " head(s), d = " + std::to_string(qkv.d) + ", d_v = " + std::to_string(qkv.dv) + ", features " +
           std::string(feature_kind_name(config.features.kind)));
  const auto heads = run_attention(g, qkv, config, log);

  std::ostringstream result;
  result << "nodes=" << g.n_global() << " heads=" << qkv.heads;
  std::vector<ReferenceErrors> errors;
  for (int h = 0; h < qkv.heads; ++h) {
    const HeadResult& r = heads[static_cast<size_t>(h)];
    const NnzSummary nnz = nnz_per_row(comm, r.grf.phi[0]);
    log.info("head " + std::to_string(h) + "      " + describe(r.kernel));
    if (!(config.shared_walks && h > 0)) report_grf(log, r.grf, nnz, config.walk);
    log.info("attention   key pass " + fmt(r.stats.key_seconds) + " s, query pass " + fmt(r.stats.query_seconds) +
             " s, normaliser min " + sci(r.stats.denominator_min) + ", bad rows " + std::to_string(r.stats.bad_rows) +
             ", " + fmt(static_cast<double>(comm.sum(r.stats.bytes_moved)) / 1e6, 2) + " MB moved");
    if (reference) {
      errors.push_back(reference_errors(g, qkv, h, r, config.walk));
      const auto& e = errors.back();
      log.info("reference   relative error of the GRF result vs: dense GRF-masked " + sci(e.grf_dense) +
               "  exact M-masked linear " + fmt(e.masked_linear, 6) + "  exact M-masked softmax " + fmt(e.masked_softmax, 6) +
               "  softmax " + fmt(e.softmax, 6) + "  unmasked linear " + fmt(e.linear, 6));
      result << " head" << h << "_error_vs_masked_linear=" << fmt(e.masked_linear, 8) << " head" << h
             << "_error_vs_dense_grf=" << e.grf_dense;
    }
    result << " head" << h << "_denominator_min=" << r.stats.denominator_min << " head" << h << "_bad_rows=" << r.stats.bad_rows;
  }
  result << " seconds=" << fmt(total.seconds(), 4);
  log.result(result.str());

  if (!out_path.empty()) {
    H5Output out(comm, out_path);
    out.write_provenance(ctx.command_line, comm.size(), ctx.config_text, config.walk.seed);
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
    out.set_attribute("/attention", "feature", std::string(feature_kind_name(config.features.kind)));
    out.set_attribute("/attention", "estimator", std::string(estimator_name(config.estimator)));
    if (reference) {
      std::vector<double> e_soft, e_msoft, e_mlin, e_grf, e_lin;
      for (const auto& e : errors) {
        e_soft.push_back(e.softmax);
        e_msoft.push_back(e.masked_softmax);
        e_mlin.push_back(e.masked_linear);
        e_grf.push_back(e.grf_dense);
        e_lin.push_back(e.linear);
      }
      out.write_replicated<double>("/attention/reference/error_vs_softmax", e_soft);
      out.write_replicated<double>("/attention/reference/error_vs_masked_softmax", e_msoft);
      out.write_replicated<double>("/attention/reference/error_vs_masked_linear", e_mlin);
      out.write_replicated<double>("/attention/reference/error_vs_dense_grf", e_grf);
      out.write_replicated<double>("/attention/reference/error_vs_unmasked_linear", e_lin);
    }
    if (save_grf) write_grf(out, g, heads[0].grf, heads[0].kernel, config.walk);
    out.commit();
    log.info("wrote       " + out_path);
  }
  std::int64_t sent = 0;
  for (const auto& r : heads) {
    sent += r.stats.bytes_moved;
    for (const auto& w : r.grf.walks) sent += w.bytes_sent;
  }
  print_run_summary(log, comm, total.seconds(), sent);
  return 0;
}

}  // namespace graphrf
