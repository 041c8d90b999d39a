// `graphrf attention`: GRF-masked linear attention across ranks, with the unmasked linear baseline and,
// on small graphs, dense references (softmax, mask-weighted softmax and linear attention, and the GRF
// result computed densely).
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <sstream>

#include "graphrf/attention/attention_pipeline.hpp"
#include "graphrf/attention/attention_reference.hpp"
#include "graphrf/attention/dark_sigma_file.hpp"
#include "graphrf/cli/cli.hpp"
#include "graphrf/core/option_error.hpp"
#include "graphrf/grf/dense_gather.hpp"
#include "graphrf/grf/dense_reference.hpp"
#include "graphrf/graph/canonical_order.hpp"
#include "graphrf/graph/graph_output.hpp"
#include "graphrf/grf/grf_output.hpp"
#include "graphrf/io/h5_output.hpp"
#include "graphrf/mpi/run_summary.hpp"
#include "graphrf/reference/sampled_attention_reference.hpp"
#include "graphrf/reference/sampled_kernel_reference.hpp"
#include "graphrf/core/memory_budget.hpp"
#include "graphrf/core/timer.hpp"

namespace graphrf {

void report_grf(const Log& log, const GrfRun& run, const NnzSummary& nnz, const WalkOptions& walk, std::int64_t n_nodes);
int run_attention_frames(const CommandContext& ctx, const AttentionConfig& attention, const std::vector<int>& synthetic,
                         const std::string& out_path);

void add_attention_options(po::options_description& desc) {
  add_graph_options(desc);
  add_kernel_options(desc);
  add_walk_options(desc);
  add_reference_options(desc, "softmax, M-masked softmax, M-masked linear attention and the (M-masked) kernel the features estimate");
  po::options_description inputs("attention inputs and estimator");
  inputs.add_options()
      ("estimator", po::value<std::string>()->default_value("symmetric"), "symmetric (Alg. 1) | two-ensembles | asymmetric (Alg. 2)")
      ("qkv", po::value<std::string>(), "HDF5 with /q, /k (N x d or N x H x d) and /v; rows in ascending node-id order or with /nodes/id")
      ("synthetic", po::value<std::string>(), "seeded synthetic Q/K/V: d,d_v (default 8,8 when --qkv is absent)")
      ("heads", po::value<int>()->default_value(1), "heads of synthetic Q/K/V")
      ("head-betas", po::value<std::string>(), "beta of each head, comma-separated")
      ("shared-walks", po::bool_switch(), "one walk ensemble for all heads (their kernels differ only in f)")
      ("on-bad-normalizer", po::value<std::string>()->default_value("auto"),
       "error | clamp | skip (auto: error when f or the features can be negative, else clamp)")
      ("normalizer-eps", po::value<double>()->default_value(1e-12, "1e-12"), "normalisers <= eps are bad")
      ("frames", po::value<std::string>(),
       "HDF5 stack of point clouds (/frames/points F x N x d, or rows x d with /frames/offsets; optional /frames/q, "
       "/frames/k, /frames/v): every frame's --knn/--radius graph, walks, asymmetric GRFs and attention, "
       "written to /frames/attention")
      ("frames-batch", po::value<std::int64_t>()->default_value(16), "--frames: frames per rank between collective writes")
      ("frames-dtype", po::value<std::string>()->default_value("float64"),
       "--frames: element type of /frames/attention, float64 | float32 (half the file; rounded from float64)");
  po::options_description features("features");
  features.add_options()
      ("feature", po::value<std::string>()->default_value("relu"), "relu | elu1 | favor | trig | dark")
      ("num-features", po::value<int>()->default_value(0), "random features m (0: d)")
      ("draw", po::value<std::string>()->default_value("orthogonal"),
       "iid | orthogonal | orthogonal+pnc | importance (favor: omega ~ N(0, Sigma*) from the query/key covariance, weighted)")
      ("antithetic", po::bool_switch(), "favor/dark: use -w for every w")
      ("relu-scale", po::bool_switch(), "relu: divide queries by sqrt(d)")
      ("relu-epsilon", po::value<double>()->default_value(1e-8, "1e-8"), "added to relu features")
      ("stabilizer-epsilon", po::value<double>()->default_value(1e-6, "1e-6"), "favor/dark stabiliser eps")
      ("feature-seed", po::value<std::uint64_t>(), "seed of the random features (default: --seed)")
      ("dark-ridge", po::value<double>()->default_value(0.0), "dark: Lambda + ridge I before the inverse square root")
      ("dark-sigma", po::value<std::string>(),
       "dark: HDF5 with /sigma (d x d, symmetric PSD) or /M (r x d, r <= d, Sigma = M^T M) instead of the whitening Lambda^-1");
  po::options_description output("output");
  output.add_options()
      ("save-grf", po::bool_switch(), "also write what `graphrf grf` writes")
      ("by-length", po::bool_switch(), "with --save-grf: also write /grf_by_length, as `graphrf grf --by-length`")
      ("out", po::value<std::string>(), "HDF5 output (without it nothing is written)");
  desc.add(inputs).add(features).add(output);
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

// A key naming a kernel exactly (describe() abbreviates long coefficient lists).
std::string kernel_key(const KernelSpec& k) {
  std::ostringstream key;
  key.precision(17);
  key << static_cast<int>(k.kind) << ' ' << k.beta << ' ' << k.power << ' ' << k.shift << ' ' << k.laplacian_scale;
  for (const double c : k.coefficients) key << ' ' << c;
  return key.str();
}

double sq(double x) { return x * x; }

// The references of every head. The exact kernel is computed once per distinct kernel (heads with the same
// kernel share it), and densely from one eigendecomposition of W shared by all kernels; above the dense
// limit, from the sampled exact columns of each distinct kernel.
class AttentionReference {
 public:
  AttentionReference(const DistributedGraph& g, const ReferenceOptions& options, const WalkOptions& walk)
      : g_(g), options_(options), walk_(walk), dense_(dense_reference(options, g.n_global())) {}

  SampledAttentionErrors errors(const QkvRows& qkv, int h, const HeadResult& r) {
    return dense_ ? dense_errors(qkv, h, r) : sampled_errors(qkv, h, r);
  }

 private:
  SampledAttentionErrors dense_errors(const QkvRows& qkv, int h, const HeadResult& r) {
    const Communicator& comm = *g_.comm;
    const auto head = static_cast<size_t>(h);
    const Eigen::MatrixXd q = gather_dense(g_, qkv.q[head]), k = gather_dense(g_, qkv.k[head]), v = gather_dense(g_, qkv.v[head]),
                          pq = gather_dense(g_, r.phi_q), pk = gather_dense(g_, r.phi_k), out = gather_dense(g_, r.output),
                          lin = gather_dense(g_, r.linear);
    if (!spectrum_) {
      const Eigen::MatrixXd w = gather_dense_w(g_, walk_);
      spectrum_ = comm.is_root() ? symmetric_spectrum(w) : DenseSpectrum{};
    }
    const Eigen::MatrixXd estimate = dense_kernel_estimate(g_, r.grf);
    std::vector<double> e(7, 0.0);
    if (comm.is_root()) {
      const auto key = kernel_key(r.kernel);
      if (!dense_exact_.count(key)) dense_exact_.emplace(key, kernel_matrix_from_spectrum(r.kernel, *spectrum_));
      const Eigen::MatrixXd& exact = dense_exact_.at(key);
      const Eigen::MatrixXd scores = kernel_scores(r.feature_kernel, q, k, pq, pk);
      e = {relative_error(out, softmax_attention(q, k, v)), relative_error(out, masked_softmax_attention(q, k, v, exact)),
           relative_error(out, masked_linear_attention(pq, pk, v, exact)),
           relative_error(out, masked_linear_attention(pq, pk, v, estimate)), relative_error(out, lin),
           relative_error(out, score_attention(scores, v, Eigen::MatrixXd::Ones(scores.rows(), scores.cols()))),
           relative_error(out, score_attention(scores, v, exact))};
    }
    comm.broadcast(e);
    SampledAttentionErrors errors;
    SampledError* targets[] = {&errors.softmax, &errors.masked_softmax, &errors.masked_linear, &errors.grf_dense, &errors.linear,
                               &errors.kernel, &errors.masked_kernel};
    for (size_t i = 0; i < e.size(); ++i) *targets[i] = sampled_relative_error(std::vector<double>{sq(e[i])}, std::vector<double>{1.0}, 1);
    for (auto* t : targets) t->rows = t->samples = g_.n_global();
    return errors;
  }

  SampledAttentionErrors sampled_errors(const QkvRows& qkv, int h, const HeadResult& r) {
    const auto key = kernel_key(r.kernel);
    if (!sampled_exact_.count(key))
      sampled_exact_.emplace(key, sampled_kernel_columns(g_, r.kernel, walk_, options_.samples, walk_.seed));
    const SampledKernelColumns& exact = sampled_exact_.at(key);
    const auto head = static_cast<size_t>(h);
    return sampled_attention_errors(g_, exact.sample, qkv.q[head], qkv.k[head], qkv.v[head], r.phi_q, r.phi_k, r.output, r.linear,
                                    exact.exact, sampled_estimate_columns(g_, r.grf, exact.sample), r.feature_kernel);
  }

  const DistributedGraph& g_;
  ReferenceOptions options_;
  WalkOptions walk_;
  bool dense_;
  std::optional<DenseSpectrum> spectrum_;
  std::map<std::string, Eigen::MatrixXd> dense_exact_;
  std::map<std::string, SampledKernelColumns> sampled_exact_;
};

std::string with_error(const SampledError& e) {
  return fmt(e.value, 6) + (e.exact() ? "" : " +- " + fmt(e.standard_error, 6));
}

}  // namespace

namespace {

// Q/K/V of extreme magnitude overflow the feature map or its sums (relu features of 1e200: NaN; V of 1e308: inf):
// refused, naming the node of the first bad row, before any result is reported. Collective.
void check_outputs_finite(const DistributedGraph& g, const std::vector<HeadResult>& heads, const std::string& source) {
  constexpr auto kNone = std::numeric_limits<std::int64_t>::max();
  std::int64_t bad = kNone, id = kNone;
  for (std::int64_t i = 0; i < g.n_local(); ++i)
    for (const auto& r : heads)
      if (!r.output.row(i).allFinite() && g.canonical_index[static_cast<size_t>(i)] < bad) {
        bad = g.canonical_index[static_cast<size_t>(i)];
        id = g.original_id[static_cast<size_t>(i)];
      }
  const std::int64_t first = g.comm->min(bad);
  if (first == kNone) return;
  const std::int64_t node = g.comm->min(bad == first ? id : kNone);
  throw InputError(source + ": the attention output of node " + std::to_string(node) +
                       " is NaN or infinite: the feature map or its sums overflowed; scale Q, K and V down",
                   /*collective=*/true);
}

}  // namespace

int run_attention_command(const CommandContext& ctx) {
  const Communicator& comm = ctx.comm;
  const auto& vm = ctx.vm;
  GraphOptions graph_options;
  AttentionConfig config;
  std::string out_path, qkv_path, dark_sigma_path;
  std::vector<int> synthetic = {8, 8};
  const bool save_grf = vm["save-grf"].as<bool>();
  ReferenceOptions reference;
  collective_try(comm, [&] {
    reference = reference_options_from(vm);
    graph_options = graph_options_from(vm);
    config.kernel = kernel_spec_from(vm);
    config.walk = walk_options_from(vm);
    config.estimator = parse_estimator(vm["estimator"].as<std::string>());
    config.shared_walks = vm["shared-walks"].as<bool>();
    config.keep_length_resolved = save_grf && vm["by-length"].as<bool>();
    if (vm["by-length"].as<bool>() && !save_grf) throw InputError("--by-length: only with --save-grf (it adds to the GRFs written)");
    if (vm.count("head-betas") && (vm.count("alpha") || vm.count("f")))
      throw InputError(std::string("--head-betas and ") + (vm.count("alpha") ? "--alpha" : "--f") +
                       ": per-head betas set a named kernel's beta, which a series given directly does not have; give one of them");
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
    if (vm.count("dark-sigma")) {
      dark_sigma_path = vm["dark-sigma"].as<std::string>();
      if (config.features.kind != FeatureKind::dark)
        throw InputError("--dark-sigma: only for --feature dark (got " + std::string(feature_kind_name(config.features.kind)) + ")");
      if (config.dark_ridge != 0.0) throw InputError("--dark-ridge: regularises the whitening Sigma, not one given by --dark-sigma");
    }
    config.normalizer = vm["on-bad-normalizer"].as<std::string>();
    if (config.normalizer != "auto") parse_bad_normalizer(config.normalizer);
    config.normalizer_eps = vm["normalizer-eps"].as<double>();
    if (!(config.normalizer_eps >= 0) || !std::isfinite(config.normalizer_eps))
      throw InputError("--normalizer-eps: must be a finite number >= 0 (got " + format_number(config.normalizer_eps) + ")");
    if (vm.count("qkv") && vm.count("synthetic")) throw InputError("--qkv and --synthetic: give one of them");
    if (vm.count("qkv")) qkv_path = vm["qkv"].as<std::string>();
    if (vm.count("synthetic")) synthetic = parse_ints("--synthetic", vm["synthetic"].as<std::string>());
    if (synthetic.size() != 2) throw InputError("--synthetic: expected d,d_v (e.g. 8,8)");
    if (vm["heads"].as<int>() < 1) throw InputError("--heads: must be >= 1");
    if (vm.count("out")) out_path = vm["out"].as<std::string>();
  });
  if (vm.count("frames")) return run_attention_frames(ctx, config, synthetic, out_path);
  const Log& log = ctx.log;
  Timer total, phase;
  PhaseTimes phases;
  if (!qkv_path.empty()) check_input_readable(comm, "--qkv", qkv_path);
  if (!dark_sigma_path.empty()) check_input_readable(comm, "--dark-sigma", dark_sigma_path);
  const DistributedGraph g = load_graph_for_command(ctx, graph_options, out_path);
  bind_walk_weights(log, g, config.walk, config.kernel);
  check_reference_plan(g, reference, config.walk);
  if (qkv_path.empty())  // --heads and --synthetic may ask for any size: refused before it is allocated
    collective_try(comm, [&] {
      const int heads = vm["heads"].as<int>();
      // Per row and head: q, k, v, then the output and unmasked linear result and their interleaved copies.
      require_memory(8.0 * static_cast<double>(g.n_local()) * heads * (2.0 * synthetic[0] + 5.0 * synthetic[1]),
                     "synthetic Q/K/V (--heads " + std::to_string(heads) + ", --synthetic " + std::to_string(synthetic[0]) +
                         "," + std::to_string(synthetic[1]) + ", " + std::to_string(g.n_local()) + " nodes on this rank)");
    });
  const QkvRows qkv = qkv_path.empty() ? synthetic_qkv(g, vm["heads"].as<int>(), synthetic[0], synthetic[1], config.walk.seed)
                                       : read_qkv(g, qkv_path);
  if (!dark_sigma_path.empty()) collective_try(comm, [&] { config.dark_m = read_dark_sigma_file(dark_sigma_path, qkv.d); });
  phases.add("load", phase.seconds());
  if (!qkv.row_order.empty()) log.info("inputs      " + qkv_path + ": " + qkv.row_order);
  log.info("inputs      " + (qkv_path.empty() ? std::string("synthetic") : qkv_path) + ": " + std::to_string(qkv.heads) +
           " head(s), d = " + std::to_string(qkv.d) + ", d_v = " + std::to_string(qkv.dv) + ", features " +
           std::string(feature_kind_name(config.features.kind)));
  phase.reset();
  const auto heads = run_attention(g, qkv, config, log);
  check_outputs_finite(g, heads, qkv_path.empty() ? "synthetic Q/K/V" : qkv_path);
  phases.add("walks + attention", phase.seconds());

  std::ostringstream result;
  result << "nodes=" << g.n_global() << " heads=" << qkv.heads;
  std::vector<SampledAttentionErrors> errors;
  std::optional<AttentionReference> references;
  if (reference.enabled) {
    log.info("plan        reference " + reference_cost(reference, g.n_global()));
    references.emplace(g, reference, config.walk);
  }
  for (int h = 0; h < qkv.heads; ++h) {
    const HeadResult& r = heads[static_cast<size_t>(h)];
    const NnzSummary nnz = nnz_per_row(comm, r.grf.phi[0]);
    log.info("head " + std::to_string(h) + "      " + describe(r.kernel));
    if (!(config.shared_walks && h > 0)) report_grf(log, r.grf, nnz, config.walk, g.n_global());
    log.info("attention   key pass " + fmt(r.stats.key_seconds) + " s, query pass " + fmt(r.stats.query_seconds) +
             " s, normaliser min " + sci(r.stats.denominator_min) + ", bad rows " + std::to_string(r.stats.bad_rows) +
             ", " + fmt(static_cast<double>(comm.sum(r.stats.bytes_moved)) / 1e6, 2) + " MB moved");
    if (references) {
      Timer timer;
      log.info("computing   the reference of head " + std::to_string(h));
      errors.push_back(references->errors(qkv, h, r));
      const auto& e = errors.back();
      const std::string how = e.softmax.exact() ? "dense" : "sampled: " + std::to_string(e.softmax.samples) + " of " +
                                                                 std::to_string(g.n_global()) + " rows, +- standard error";
      log.info("reference   relative error of the GRF result vs: " +
               std::string(e.grf_dense.exact() ? "dense GRF-masked " : "GRF-estimate-masked ") + sci(e.grf_dense.value) + "  exact M-masked linear " + with_error(e.masked_linear) +
               "  exact M-masked softmax " + with_error(e.masked_softmax) + "  softmax " + with_error(e.softmax) +
               "  unmasked linear " + with_error(e.linear) + "  feature kernel " + r.feature_kernel.name + ": M-masked " +
               with_error(e.masked_kernel) + ", unmasked " + with_error(e.kernel) + " (" + how + ", " +
               fmt(comm.max(timer.seconds()), 2) + " s)");
      phases.add("reference", timer.seconds());
      result << " head" << h << "_error_vs_masked_linear=" << fmt(e.masked_linear.value, 8) << " head" << h
             << "_error_vs_dense_grf=" << e.grf_dense.value;
      if (!e.masked_linear.exact())
        result << " head" << h << "_error_vs_masked_linear_se=" << fmt(e.masked_linear.standard_error, 8);
      result << " head" << h << "_error_vs_masked_kernel=" << fmt(e.masked_kernel.value, 8);
    }
    result << " head" << h << "_denominator_min=" << r.stats.denominator_min << " head" << h << "_bad_rows=" << r.stats.bad_rows;
  }
  result << " seconds=" << fmt(total.seconds(), 4);
  log.result(result.str());

  phase.reset();
  if (!out_path.empty()) {
    log.info("writing     " + out_path);
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
      const auto d = static_cast<std::uint64_t>(qkv.d);
      out.write_replicated<double>("/attention/importance_sigma", sigma,
                                   multi ? std::vector<std::uint64_t>{static_cast<std::uint64_t>(qkv.heads), d, d} : std::vector<std::uint64_t>{d, d});
    }
    out.set_attribute("/attention", "feature", std::string(feature_kind_name(config.features.kind)));
    out.set_attribute("/attention", "estimator", std::string(estimator_name(config.estimator)));
    if (reference.enabled) {
      const std::pair<const char*, SampledError SampledAttentionErrors::*> fields[] = {
          {"error_vs_softmax", &SampledAttentionErrors::softmax},
          {"error_vs_masked_softmax", &SampledAttentionErrors::masked_softmax},
          {"error_vs_masked_linear", &SampledAttentionErrors::masked_linear},
          {"error_vs_dense_grf", &SampledAttentionErrors::grf_dense},
          {"error_vs_unmasked_linear", &SampledAttentionErrors::linear},
          {"error_vs_kernel", &SampledAttentionErrors::kernel},
          {"error_vs_masked_kernel", &SampledAttentionErrors::masked_kernel}};
      const bool sampled = !errors.front().softmax.exact();
      for (const auto& [name, field] : fields) {
        std::vector<double> values, standard_errors;
        for (const auto& e : errors) values.push_back((e.*field).value), standard_errors.push_back((e.*field).standard_error);
        out.write_replicated<double>("/attention/reference/" + std::string(name), values);
        if (sampled) out.write_replicated<double>("/attention/reference/" + std::string(name) + "_standard_error", standard_errors);
      }
      if (sampled) out.set_attribute("/attention/reference", "sampled_rows", errors.front().softmax.samples);
      out.set_attribute("/attention/reference", "kernel", heads.front().feature_kernel.name);
    }
    if (save_grf) write_grf(out, g, heads[0].grf, heads[0].kernel, config.walk, vm["by-length"].as<bool>());
    out.commit();
    log.info("wrote       " + out_path + " in " + fmt(phase.seconds(), 2) + " s");
    phases.add("write", phase.seconds());
  }
  log.info(phases.line(total.seconds()));
  print_run_summary(log, comm, total.seconds());
  return 0;
}

}  // namespace graphrf
