// `graphrf attention`: GRF-masked linear attention across ranks, with the unmasked linear baseline
// (attention/attention_run.hpp, written by attention/attention_output.hpp) and with --reference its errors
// against softmax, mask-weighted softmax and linear attention and the GRF result computed densely
// (reference/attention_head_errors.hpp).
#include <charconv>
#include <cmath>
#include <optional>
#include <sstream>

#include "graphrf/attention/attention_output.hpp"
#include "graphrf/attention/attention_run.hpp"
#include "graphrf/cli/commands.hpp"
#include "graphrf/core/option_error.hpp"
#include "graphrf/core/timer.hpp"
#include "graphrf/grf/grf_run.hpp"
#include "graphrf/io/h5_output.hpp"
#include "graphrf/io/report_output.hpp"
#include "graphrf/mpi/run_summary.hpp"
#include "graphrf/reference/attention_head_errors.hpp"

namespace graphrf {

namespace {

struct AttentionCommandOptions {
  GraphArguments graph;
  KernelArguments kernel;
  WalkArguments walk;
  ReferenceOptions reference;
  FramesArguments frames;
  std::string estimator, on_bad_normalizer, feature, draw;
  std::optional<std::string> qkv, synthetic, head_betas, out, dark_sigma;
  std::optional<std::uint64_t> feature_seed;
  int heads = 1, num_features = 0;
  bool shared_walks = false, antithetic = false, relu_scale = false, save_grf = false, by_length = false;
  double normalizer_eps = 1e-12, relu_epsilon = 1e-8, stabilizer_epsilon = 1e-6, dark_ridge = 0.0;
};

void declare_attention_options(po::options_description& desc, AttentionCommandOptions& o) {
  add_graph_options(desc, o.graph);
  add_kernel_options(desc, o.kernel);
  add_walk_options(desc, o.walk);
  add_reference_options(desc, o.reference, "softmax, M-masked softmax, M-masked linear attention and the (M-masked) kernel the features estimate");
  po::options_description inputs("attention inputs and estimator");
  inputs.add_options()
      ("estimator", po::value(&o.estimator)->default_value("symmetric"), "symmetric (Alg. 1) | two-ensembles | asymmetric (Alg. 2)")
      ("qkv", optional_value(&o.qkv), "HDF5 with /q, /k (N x d or N x H x d) and /v; rows in ascending node-id order or with /nodes/id")
      ("synthetic", optional_value(&o.synthetic), "seeded synthetic Q/K/V: d,d_v (default 8,8 when --qkv is absent)")
      ("heads", po::value(&o.heads)->default_value(1), "heads of synthetic Q/K/V")
      ("head-betas", optional_value(&o.head_betas), "beta of each head, comma-separated")
      ("shared-walks", po::bool_switch(&o.shared_walks), "one walk ensemble for all heads (their kernels differ only in f)")
      ("on-bad-normalizer", po::value(&o.on_bad_normalizer)->default_value("auto"),
       "error | clamp | skip (auto: error when f or the features can be negative, else clamp)")
      ("normalizer-eps", po::value(&o.normalizer_eps)->default_value(1e-12, "1e-12"), "normalisers <= eps are bad")
      ("frames", optional_value(&o.frames.path),
       "HDF5 stack of point clouds (/frames/points F x N x d, or rows x d with /frames/offsets; optional /frames/q, "
       "/frames/k, /frames/v): every frame's --knn/--radius graph, walks, asymmetric GRFs and attention, "
       "written to /frames/attention")
      ("frames-batch", po::value(&o.frames.batch)->default_value(16), "--frames: frames per rank between collective writes")
      ("frames-dtype", po::value(&o.frames.dtype)->default_value("float64"),
       "--frames: element type of /frames/attention, float64 | float32 (half the file; rounded from float64)");
  po::options_description features("features");
  features.add_options()
      ("feature", po::value(&o.feature)->default_value("relu"), "relu | elu1 | favor | trig | dark")
      ("num-features", po::value(&o.num_features)->default_value(0), "random features m (0: d)")
      ("draw", po::value(&o.draw)->default_value("orthogonal"),
       "iid | orthogonal | orthogonal+pnc | importance (favor: omega ~ N(0, Sigma*) from the query/key covariance, weighted)")
      ("antithetic", po::bool_switch(&o.antithetic), "favor/dark: use -w for every w")
      ("relu-scale", po::bool_switch(&o.relu_scale), "relu: divide queries by sqrt(d)")
      ("relu-epsilon", po::value(&o.relu_epsilon)->default_value(1e-8, "1e-8"), "added to relu features")
      ("stabilizer-epsilon", po::value(&o.stabilizer_epsilon)->default_value(1e-6, "1e-6"), "favor/dark stabiliser eps")
      ("feature-seed", optional_value(&o.feature_seed), "seed of the random features (default: --seed)")
      ("dark-ridge", po::value(&o.dark_ridge)->default_value(0.0), "dark: Lambda + ridge I before the inverse square root")
      ("dark-sigma", optional_value(&o.dark_sigma),
       "dark: HDF5 with /sigma (d x d, symmetric PSD) or /M (r x d, r <= d, Sigma = M^T M) instead of the whitening Lambda^-1");
  po::options_description output("output");
  output.add_options()
      ("save-grf", po::bool_switch(&o.save_grf), "also write what `graphrf grf` writes")
      ("by-length", po::bool_switch(&o.by_length), "with --save-grf: also write /grf_by_length, as `graphrf grf --by-length`")
      ("out", optional_value(&o.out), "HDF5 output (without it nothing is written)");
  desc.add(inputs).add(features).add(output);
}

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

int run_attention_command(const CommandContext& ctx, AttentionCommandOptions& o) {
  const Communicator& comm = ctx.comm;
  GraphOptions graph_options;
  AttentionConfig config;
  std::string out_path, qkv_path, dark_sigma_path;
  std::vector<int> synthetic = {8, 8};
  const bool save_grf = o.save_grf;
  ReferenceOptions reference;
  collective_try(comm, [&] {
    reference = reference_options_from(o.reference);
    graph_options = graph_options_from(o.graph);
    config.kernel = kernel_spec_from(o.kernel, o.walk.weights);
    config.walk = walk_options_from(o.walk);
    config.estimator = parse_estimator(o.estimator);
    config.shared_walks = o.shared_walks;
    config.keep_length_resolved = save_grf && o.by_length;
    if (o.by_length && !save_grf) throw InputError("--by-length: only with --save-grf (it adds to the GRFs written)");
    if (o.head_betas && (o.kernel.alpha || o.kernel.f))
      throw InputError(std::string("--head-betas and ") + (o.kernel.alpha ? "--alpha" : "--f") +
                       ": per-head betas set a named kernel's beta, which a series given directly does not have; give one of them");
    if (o.head_betas) config.head_betas = parse_doubles("--head-betas", *o.head_betas);
    config.features.kind = parse_feature_kind(o.feature);
    config.features.m = o.num_features;
    config.features.draw = parse_frequency_draw(o.draw);
    config.features.antithetic = o.antithetic;
    config.features.relu_scale = o.relu_scale;
    config.features.relu_epsilon = o.relu_epsilon;
    config.features.stabilizer_epsilon = o.stabilizer_epsilon;
    config.features.seed = o.feature_seed ? *o.feature_seed : config.walk.seed;
    config.dark_ridge = o.dark_ridge;
    if (o.dark_sigma) {
      dark_sigma_path = *o.dark_sigma;
      if (config.features.kind != FeatureKind::dark)
        throw InputError("--dark-sigma: only for --feature dark (got " + std::string(feature_kind_name(config.features.kind)) + ")");
      if (config.dark_ridge != 0.0) throw InputError("--dark-ridge: regularises the whitening Sigma, not one given by --dark-sigma");
    }
    config.normalizer = o.on_bad_normalizer;
    if (config.normalizer != "auto") parse_bad_normalizer(config.normalizer);
    config.normalizer_eps = o.normalizer_eps;
    if (!(config.normalizer_eps >= 0) || !std::isfinite(config.normalizer_eps))
      throw InputError("--normalizer-eps: must be a finite number >= 0 (got " + format_number(config.normalizer_eps) + ")");
    if (o.qkv && o.synthetic) throw InputError("--qkv and --synthetic: give one of them");
    if (o.qkv) qkv_path = *o.qkv;
    if (o.synthetic) synthetic = parse_ints("--synthetic", *o.synthetic);
    if (synthetic.size() != 2) throw InputError("--synthetic: expected d,d_v (e.g. 8,8)");
    if (o.heads < 1) throw InputError("--heads: must be >= 1");
    if (o.out) out_path = *o.out;
  });
  if (o.frames.path) return run_attention_frames(ctx, o.graph, o.frames, config, synthetic, out_path);
  const Log& log = ctx.log;
  Timer total, phase;
  PhaseTimes phases;
  if (!qkv_path.empty()) check_input_readable(comm, "--qkv", qkv_path);
  if (!dark_sigma_path.empty()) check_input_readable(comm, "--dark-sigma", dark_sigma_path);
  const DistributedGraph g = load_graph_for_command(ctx, o.graph, graph_options, out_path);
  bind_walk_weights(log, g, config.walk, config.kernel);
  check_reference_plan(g, reference, config.walk);
  phases.add("load", phase.seconds());
  AttentionRunOptions options;
  options.config = config;
  options.qkv_path = qkv_path;
  options.dark_sigma_path = dark_sigma_path;
  options.heads = o.heads;
  options.synthetic = synthetic;
  options.save_grf = save_grf;
  options.by_length = o.by_length;
  options.memory_limit = graph_options.memory_limit;
  const AttentionRun run = run_graph_attention(g, options, log);
  phases.add(run.phases);

  Report report;
  report.count("nodes", g.n_global()).count("heads", run.qkv.heads);
  std::vector<SampledAttentionErrors> errors;
  std::optional<AttentionReference> references;
  if (reference.enabled) {
    log.info("plan        reference " + reference_cost(reference, g.n_global()));
    references.emplace(g, reference, config.walk);
  }
  for (int h = 0; h < run.qkv.heads; ++h) {
    const HeadResult& r = run.heads[static_cast<size_t>(h)];
    const NnzSummary nnz = nnz_per_row(comm, r.grf.phi[0]);
    log.info("head " + std::to_string(h) + "      " + describe(r.kernel));
    if (!(config.shared_walks && h > 0)) report_grf(log, r.grf, nnz, config.walk, g);
    log.info(describe_attention_pass(comm, r));
    if (references) {
      Timer timer;
      log.info("computing   the reference of head " + std::to_string(h));
      errors.push_back(references->errors(run.qkv, h, r));
      log.info(describe_attention_errors(errors.back(), r.feature_kernel.name, g.n_global(), comm.max(timer.seconds())));
      phases.add("reference", timer.seconds());
      report.append(attention_error_figures(h, errors.back()));
    }
    report.append(attention_head_figures(h, r));
  }
  report.number("seconds", total.seconds(), 4)
      .number("memory_estimate_mib", run.memory_estimate_mib, 1)
      .number("peak_mib", run.peak_mib, 1);
  print_report(log, report);

  phase.reset();
  if (!out_path.empty()) {
    log.info("writing     " + out_path);
    H5Output out(comm, out_path);
    out.write_provenance(ctx.command_line, comm.size(), ctx.config_text, config.walk.seed);
    write_attention(out, g, run);
    if (reference.enabled) write_attention_errors(out, errors, run.heads.front().feature_kernel.name);
    write_report(out, report);
    out.commit();
    log.info("wrote       " + out_path + " in " + fmt(phase.seconds(), 2) + " s");
    phases.add("write", phase.seconds());
  }
  log.info(phases.line(total.seconds()));
  print_run_summary(log, comm, total.seconds());
  return 0;
}

}  // namespace

Command attention_command() {
  return make_command<AttentionCommandOptions>("attention", "GRF-masked linear attention across ranks (the default job)",
                                               declare_attention_options, run_attention_command);
}

}  // namespace graphrf
