// `graphrf attention --frames STACK.h5`: GRF-masked attention on every frame of a stack of point clouds, each
// frame's kNN graph built on the fly (Reid et al. 2025a, §4.4: the particle-dynamics workload).
#include <optional>

#include "graphrf/attention/attention_pipeline.hpp"
#include "graphrf/cli/commands.hpp"
#include "graphrf/core/timer.hpp"
#include "graphrf/frames/frame_run.hpp"
#include "graphrf/io/h5_output.hpp"
#include "graphrf/mpi/memory_limit.hpp"
#include "graphrf/mpi/run_summary.hpp"

namespace graphrf {

namespace {

// Options that name a single graph, or a part of the single-graph path the frames path does not have.
void refuse_single_graph_options(const po::variables_map& vm) {
  const char* refused[] = {"points", "qkv", "head-betas", "alpha", "f"};
  for (const char* name : refused)
    if (vm.count(name)) throw InputError(std::string("--frames and --") + name + ": give one of them (the frames file holds the points and Q/K/V)");
  if (!vm["graph"].defaulted()) throw InputError("--frames and --graph: give one of them");
  const char* switches[] = {"shared-walks", "save-grf", "by-length", "reference"};
  for (const char* name : switches)
    if (vm.count(name) && vm[name].as<bool>()) throw InputError(std::string("--frames and --") + name + ": not available with --frames");
  if (vm["heads"].as<int>() != 1) throw InputError("--frames: one head (got --heads " + std::to_string(vm["heads"].as<int>()) + ")");
  if (!vm["estimator"].defaulted() && vm["estimator"].as<std::string>() != "asymmetric")
    throw InputError("--estimator " + vm["estimator"].as<std::string>() + ": --frames computes asymmetric GRFs (Alg. 2), as the paper's point-cloud runs do");
}

}  // namespace

int run_attention_frames(const CommandContext& ctx, const GraphArguments& graph, const FramesArguments& frames_options,
                         const AttentionConfig& attention, const std::vector<int>& synthetic, const std::string& out_path) {
  const Communicator& comm = ctx.comm;
  const auto& vm = ctx.vm;
  const Log& log = ctx.log;
  Timer total;
  const std::string path = *frames_options.path;
  FrameConfig config;
  std::int64_t batch = 0;
  FrameOutputType output_type = FrameOutputType::float64;
  FrameStack stack;
  collective_try(comm, [&] {
    refuse_single_graph_options(vm);
    batch = frames_options.batch;
    if (batch < 1) throw InputError("--frames-batch: must be >= 1 (got " + std::to_string(batch) + ")");
    output_type = parse_frame_output_type(frames_options.dtype);
    config.graph = point_graph_options_from(graph);
    config.kernel = attention.kernel;
    config.walk = attention.walk;
    config.features = attention.features;
    config.normalizer = attention.normalizer;
    config.normalizer_eps = attention.normalizer_eps;
    config.synthetic_d = synthetic[0];
    config.synthetic_dv = synthetic[1];
    stack = read_frame_stack(path);
  });
  if (!out_path.empty()) check_output_writable(comm, out_path, command_inputs(vm));
  std::optional<FrameAttention> frames;
  collective_try(comm, [&] { frames.emplace(config, stack.has_qkv() ? stack.d_qk : config.synthetic_d); });
  const int d_v = stack.has_qkv() ? stack.d_v : config.synthetic_dv;
  const auto split = split_frames(stack.offsets, comm.size());
  std::int64_t largest = 0;
  for (std::int64_t f = 0; f < stack.frames(); ++f) largest = std::max(largest, stack.points(f));
  log.info("frames      " + path + ": " + std::to_string(stack.frames()) + " frames, " + std::to_string(stack.total_points()) +
           " points in R^" + std::to_string(stack.dim) + (stack.ragged ? " (ragged, largest " + std::to_string(largest) + ")" : "") +
           ", Q/K/V " + (stack.has_qkv() ? "from the file" : "synthetic") + "; " + std::to_string(comm.size()) +
           " rank(s), up to " + std::to_string(split[1] - split[0]) + " frames each, batches of " + std::to_string(batch));
  // Per rank: one batch of outputs, plus one frame's graph, walks and features at a time.
  const double frame_bytes = static_cast<double>(largest) *
                             (8.0 * (3 * stack.dim + 4 * (stack.has_qkv() ? stack.d_qk : config.synthetic_d) + 3 * d_v) +
                              48.0 * static_cast<double>(config.graph.knn > 0 ? 2 * config.graph.knn : 16) +
                              16.0 * static_cast<double>(config.walk.walkers * config.walk.max_length + 1));
  const double need = static_cast<double>(std::min<std::int64_t>(batch, split[1] - split[0])) * static_cast<double>(largest) * d_v *
                          (output_type == FrameOutputType::float32 ? 12.0 : 8.0) + frame_bytes;  // float32: plus its copy
  log.info("memory      estimate per rank: " + fmt(need / (1 << 20), 1) + " MiB (one batch of output rows and one frame's graph, GRFs and features)");
  check_memory_fits(comm, need, memory_limit_per_rank(comm, graph_options_from(graph).memory_limit), "the frames of " + path);

  std::optional<H5Output> out;
  if (!out_path.empty()) {
    out.emplace(comm, out_path);
    out->write_provenance(ctx.command_line, comm.size(), ctx.config_text, config.walk.seed);
  }
  const FramesSummary s = run_frames(comm, stack, *frames, d_v, batch, out ? &*out : nullptr, log, output_type);
  if (out) {
    out->set_attribute("/frames/attention", "axes", stack.ragged ? "point (rows of /frames/offsets ranges), value" : "frame, point, value");
    if (stack.ragged) out->write_replicated<std::int64_t>("/frames/offsets", stack.offsets);
    out->commit();
  }
  const auto& t = s.busiest;
  const double per_frame = 1e3 / static_cast<double>(std::max<std::int64_t>(1, s.frames));
  log.info("graphs      " + std::to_string(s.edges) + " edges in all, " + fmt(static_cast<double>(s.edges) / static_cast<double>(s.points), 2) +
           " per point; walks " + std::to_string(s.hops) + " hops; GRF " + fmt(static_cast<double>(s.grf_nonzeros) / static_cast<double>(s.points), 1) +
           " nonzeros per row; normaliser min " + sci(s.denominator_min) + ", bad rows " + std::to_string(s.bad_rows));
  log.info("time [s]    busiest rank: graph " + fmt(t.graph) + "  walks " + fmt(t.walks) + "  attention " + fmt(t.attention) +
           "  read " + fmt(s.read_seconds) + "  write " + fmt(s.write_seconds) + "  (loop " + fmt(s.seconds) + ", " +
           fmt(static_cast<double>(s.frames) / s.seconds, 2) + " frames/s, " + fmt(s.seconds * per_frame * comm.size(), 1) +
           " ms per frame per rank)");
  log.result("frames=" + std::to_string(s.frames) + " points=" + std::to_string(s.points) + " frames_per_second=" +
             fmt(static_cast<double>(s.frames) / s.seconds, 3) + " bad_rows=" + std::to_string(s.bad_rows) + " seconds=" + fmt(total.seconds(), 4));
  print_run_summary(log, comm, total.seconds());
  return 0;
}

}  // namespace graphrf
