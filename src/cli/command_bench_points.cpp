// `graphrf bench-points`: the particle-dynamics workload of Reid et al. 2025a (§4.4, App. C.3) as a benchmark.
// Synthetic scenes of moving rigid bodies (N = 32768 particles, seeded) are written to an HDF5 stack, then
// processed as `attention --frames` does: per frame the exact k = 3 nearest-neighbour graph, n = 27 repelling
// walkers per node making exactly T = 3 hops, asymmetric GRFs, ReLU features of d = 16 synthetic queries and
// keys, masked attention, and the output rows written collectively. It prints the time per frame of every
// phase, frames per second, the kNN build against nanoflann's own single-core rate, and the speed-up over
// recomputing frames one at a time through the single-graph path (`attention --points`), whose rows it checks
// against the frames path's.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <optional>

#include "graphrf/attention/attention_pipeline.hpp"
#include "graphrf/attention/qkv.hpp"
#include "graphrf/cli/commands.hpp"
#include "graphrf/core/timer.hpp"
#include "graphrf/frames/frame_run.hpp"
#include "graphrf/frames/synthetic_scenes.hpp"
#include "graphrf/grf/dense_gather.hpp"
#include "graphrf/io/h5_output.hpp"
#include "graphrf/points/local_point_graph.hpp"

namespace graphrf {

namespace {

struct BenchPointsOptions {
  std::int64_t points_per_frame = 32768, frames = 64, knn = 3, walkers = 27, hops = 3, frames_batch = 16,
               single_graph_frames = 2;
  int bodies = 4, d = 16;
  std::string coupling, frames_dtype;
  std::uint64_t seed = 1;
  std::optional<std::string> scenes_out, workdir;
};

void declare_bench_points_options(po::options_description& desc, BenchPointsOptions& o) {
  desc.add_options()
      ("points-per-frame", po::value(&o.points_per_frame)->default_value(32768), "particles per scene")
      ("frames", po::value(&o.frames)->default_value(64), "scenes in the stack")
      ("bodies", po::value(&o.bodies)->default_value(4), "rigid bodies per scene")
      ("knn", po::value(&o.knn)->default_value(3), "k of the kNN graph")
      ("walkers", po::value(&o.walkers)->default_value(27), "walkers per node")
      ("hops", po::value(&o.hops)->default_value(3), "hops of every walker (--fixed-length)")
      ("coupling", po::value(&o.coupling)->default_value("repelling"), "iid | repelling")
      ("d", po::value(&o.d)->default_value(16), "width of the synthetic queries, keys and values")
      ("frames-batch", po::value(&o.frames_batch)->default_value(16), "frames per rank between collective writes")
      ("frames-dtype", po::value(&o.frames_dtype)->default_value("float64"), "element type of the output rows, float64 | float32")
      ("single-graph-frames", po::value(&o.single_graph_frames)->default_value(2), "frames recomputed through the single-graph path")
      ("seed", po::value(&o.seed)->default_value(1), "seed of scenes, walks and features")
      ("scenes-out", optional_value(&o.scenes_out), "keep the generated stack here (default: a temporary file, removed)")
      ("workdir", optional_value(&o.workdir), "folder of the temporary files (default: the system's temporary folder)");
}

// A temporary path that every rank agrees on.
std::string shared_temp_path(const Communicator& comm, const std::optional<std::string>& workdir, const std::string& name) {
  std::string dir = workdir ? *workdir : std::filesystem::temp_directory_path().string();
  std::string path = dir + "/graphrf-bench-points-" + std::to_string(::getpid()) + "-" + name;
  comm.broadcast(path);
  return path;
}

void write_scenes(const Communicator& comm, const SceneOptions& scenes, std::int64_t frames, std::int64_t batch,
                  const std::string& path) {
  H5Output out(comm, path);
  out.create_rows<double>("/frames/points", {static_cast<std::uint64_t>(frames), static_cast<std::uint64_t>(scenes.points), 3});
  std::vector<std::int64_t> offsets;
  for (std::int64_t f = 0; f <= frames; ++f) offsets.push_back(f * scenes.points);
  const auto split = split_frames(offsets, comm.size());
  const std::int64_t first = split[static_cast<size_t>(comm.rank())], last = split[static_cast<size_t>(comm.rank()) + 1];
  const std::int64_t rounds = comm.max((last - first + batch - 1) / batch);
  for (std::int64_t r = 0; r < rounds; ++r) {
    const std::int64_t a = std::min(last, first + r * batch), b = std::min(last, a + batch);
    std::vector<double> rows;
    for (std::int64_t f = a; f < b; ++f) {
      const auto p = scene_points(scenes, f);
      rows.insert(rows.end(), p.begin(), p.end());
    }
    out.write_rows_at<double>("/frames/points", static_cast<std::uint64_t>(a), rows);
  }
  out.commit();
}

// The 1-minute load average (Linux), so a reader can tell a quiet run from a loaded one.
std::string load_average() {
  double load[1] = {0};
  return ::getloadavg(load, 1) == 1 ? fmt(load[0], 2) : std::string("unknown");
}

double ms(double seconds, std::int64_t frames) { return 1e3 * seconds / static_cast<double>(std::max<std::int64_t>(frames, 1)); }

int run_bench_points(const CommandContext& ctx, BenchPointsOptions& options) {
  const Communicator& comm = ctx.comm;
  const Log& log = ctx.log;
  SceneOptions scenes;
  FrameConfig config;
  std::int64_t frames = 0, batch = 0, single = 0;
  FrameOutputType output_type = FrameOutputType::float64;
  collective_try(comm, [&] {
    scenes.points = options.points_per_frame;
    scenes.bodies = options.bodies;
    scenes.seed = options.seed;
    frames = options.frames;
    batch = options.frames_batch;
    single = options.single_graph_frames;
    output_type = parse_frame_output_type(options.frames_dtype);
    if (scenes.points < 2 || scenes.bodies < 1 || frames < 1 || batch < 1 || single < 0 || single > frames)
      throw InputError("--points-per-frame >= 2, --bodies >= 1, --frames >= 1, --frames-batch >= 1 and "
                       "0 <= --single-graph-frames <= --frames");
    config.graph.knn = options.knn;
    config.walk.walkers = options.walkers;
    config.walk.fixed_length = true;
    config.walk.max_length = options.hops;
    config.walk.coupling = parse_coupling(options.coupling);
    config.walk.seed = scenes.seed;
    validate(config.walk);
    config.features.seed = scenes.seed;
    config.synthetic_d = config.synthetic_dv = options.d;
  });
  std::optional<FrameAttention> attention;
  collective_try(comm, [&] { attention.emplace(config, config.synthetic_d); });
  const std::string scenes_path = options.scenes_out ? *options.scenes_out : shared_temp_path(comm, options.workdir, "scenes.h5");
  const std::string out_path = shared_temp_path(comm, options.workdir, "attention.h5");
  log.info("bench-points " + std::to_string(frames) + " scenes of " + std::to_string(scenes.points) + " particles (" +
           std::to_string(scenes.bodies) + " rigid bodies + noise), k = " + std::to_string(config.graph.knn) + ", n = " +
           std::to_string(config.walk.walkers) + " " + coupling_name(config.walk.coupling) + " walkers, T = " +
           std::to_string(config.walk.max_length) + " hops, d = " + std::to_string(config.synthetic_d) + ", " +
           std::to_string(comm.size()) + " rank(s), batches of " + std::to_string(batch));
  Timer timer;
  write_scenes(comm, scenes, frames, batch, scenes_path);
  log.info("scenes      written to " + scenes_path + " in " + fmt(timer.seconds(), 2) + " s");

  // The frames path, as `attention --frames` runs it (output written to a temporary file).
  const FrameStack stack = read_frame_stack(scenes_path);
  FramesSummary s;
  double cpu_seconds = 0;  // processor time of the busiest rank: what the loop costs on a machine of its own
  {
    check_output_writable(comm, out_path);
    H5Output out(comm, out_path);
    const std::clock_t cpu_start = std::clock();
    s = run_frames(comm, stack, *attention, config.synthetic_dv, batch, &out, log, output_type);
    cpu_seconds = comm.max(static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC);
    out.commit();
  }
  const double fps = static_cast<double>(s.frames) / s.seconds;
  const std::int64_t per_rank = (frames + comm.size() - 1) / comm.size();  // frames of the busiest rank
  log.info("frames path " + fmt(fps, 2) + " frames/s (" + fmt(s.seconds, 2) + " s for " + std::to_string(s.frames) + " frames); per frame on the busiest rank [ms]: knn graph " +
           fmt(ms(s.busiest.graph, per_rank), 1) + ", walks + GRFs " + fmt(ms(s.busiest.walks, per_rank), 1) + ", attention " +
           fmt(ms(s.busiest.attention, per_rank), 1) + ", read " + fmt(ms(s.read_seconds, per_rank), 1) + ", write " +
           fmt(ms(s.write_seconds, per_rank), 1));
  const double cpu_fps = static_cast<double>(s.frames) / cpu_seconds;
  log.info("cpu         " + fmt(ms(cpu_seconds, per_rank), 1) + " ms of processor time per frame on the busiest rank: " +
           fmt(cpu_fps, 2) + " frames/s when every rank has a core to itself (wall-clock figures above include waiting "
           "for the processor on a loaded machine; load average " + load_average() + ")");

  // kNN against nanoflann on one core (rank 0, the others wait): frame 0, same k.
  double knn_nanoflann = 0, knn_graph = 0;
  if (comm.is_root()) {
    const Frame frame = read_frame(H5Input(scenes_path), stack, 0);
    knn_nanoflann = nanoflann_knn_seconds(frame.cloud, config.graph.knn);
    Timer t;
    const LocalGraph g = build_local_point_graph(frame.cloud, config.graph);
    knn_graph = t.seconds();
  }
  comm.barrier();
  comm.broadcast(knn_nanoflann);
  comm.broadcast(knn_graph);
  log.info("knn         frame 0 on one core: nanoflann build + (k+1)-NN queries " + fmt(1e3 * knn_nanoflann, 1) +
           " ms; graphrf exact kNN graph (ties by id, symmetrised, CSR) " + fmt(1e3 * knn_graph, 1) + " ms (" +
           fmt(knn_graph / knn_nanoflann, 2) + "x)");

  // The single-graph path: each frame alone, all ranks on it, as `attention --points FRAME` runs it.
  double single_seconds = 0, max_difference = 0;
  AttentionConfig single_config;
  single_config.kernel = config.kernel;
  single_config.walk = config.walk;
  single_config.estimator = GrfEstimator::asymmetric;
  single_config.features = config.features;
  const Log quiet(comm, true);
  for (std::int64_t f = 0; f < single; ++f) {
    const Frame frame = read_frame(H5Input(scenes_path), stack, f);
    comm.barrier();
    Timer t;
    const DistributedGraph g = build_point_graph(comm, frame.cloud, config.graph, "block", "frame " + std::to_string(f));
    const QkvRows qkv = synthetic_qkv(g, 1, config.synthetic_d, config.synthetic_dv, config.walk.seed);
    const auto heads = run_attention(g, qkv, single_config, quiet);
    single_seconds += comm.max(t.seconds());
    // Its rows against the frames path's rows of the same frame.
    const Eigen::MatrixXd rows = gather_dense_block(comm, heads[0].output, g.n_global());
    if (comm.is_root()) {
      FrameAttention::Times unused;
      const RowMatrix mine = attention->run(frame, unused).output;
      max_difference = std::max(max_difference, (rows - Eigen::MatrixXd(mine)).cwiseAbs().maxCoeff());
    }
  }
  comm.broadcast(max_difference);
  if (single > 0)
    log.info("single path " + fmt(ms(single_seconds, single), 1) + " ms per frame (" + std::to_string(single) +
             " frames through build_point_graph + run_attention on all ranks): the frames path is " +
             fmt(single_seconds / static_cast<double>(single) * fps, 1) + "x faster; rows differ by at most " + sci(max_difference));
  log.result("bench=points ranks=" + std::to_string(comm.size()) + " frames=" + std::to_string(s.frames) + " dtype=" +
             (output_type == FrameOutputType::float32 ? "float32" : "float64") + " points=" +
             std::to_string(scenes.points) + " frames_per_second=" + fmt(fps, 3) + " knn_ms=" + fmt(ms(s.busiest.graph, per_rank), 2) +
             " walks_ms=" + fmt(ms(s.busiest.walks, per_rank), 2) + " attention_ms=" + fmt(ms(s.busiest.attention, per_rank), 2) +
             " read_ms=" + fmt(ms(s.read_seconds, per_rank), 2) + " write_ms=" + fmt(ms(s.write_seconds, per_rank), 2) +
             " knn_vs_nanoflann=" + fmt(knn_graph / knn_nanoflann, 3) + " cpu_ms_per_frame=" + fmt(ms(cpu_seconds, per_rank), 2) +
             " cpu_frames_per_second=" + fmt(cpu_fps, 3) +
             (single > 0 ? " single_path_ms=" + fmt(ms(single_seconds, single), 2) + " speedup=" +
                               fmt(single_seconds / static_cast<double>(single) * fps, 2) + " max_row_difference=" + sci(max_difference)
                         : std::string()));
  if (comm.is_root()) {
    std::filesystem::remove(out_path);
    if (!options.scenes_out) std::filesystem::remove(scenes_path);
  }
  return 0;
}

}  // namespace

Command bench_points_command() {
  return make_command<BenchPointsOptions>(
      "bench-points", "benchmark: the particle-dynamics workload (kNN graph per frame, repelling walks, masked attention)",
      declare_bench_points_options, run_bench_points);
}

}  // namespace graphrf
