// The frames path against the single-graph path: GRF rows built by one process over a whole frame equal the
// distributed engine's rows up to rounding (iid halting walks, fixed-length and halting repelling packs, block and METIS partitions),
// masked attention per frame equals run_attention's rows, and a stack processed by run_frames gives each
// frame's rows whatever the rank count and batch size.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <random>

#include "graphrf/attention/attention_pipeline.hpp"
#include "graphrf/attention/qkv.hpp"
#include "graphrf/frames/frame_run.hpp"
#include "graphrf/grf/grf_pipeline.hpp"
#include "graphrf/points/local_point_graph.hpp"
#include "mpi_test_support.hpp"

namespace graphrf {
namespace {

using testing::quiet_log;
using testing::shared_temp_path;
using testing::world;

PointCloud random_cloud(std::int64_t n, int dim, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u;
  PointCloud c;
  c.dim = dim;
  for (std::int64_t i = 0; i < n * dim; ++i) c.coords.push_back(u(rng));
  for (std::int64_t i = 0; i < n; ++i) c.id.push_back(i);
  return c;
}

// (row id, column id) -> value of distributed sparse rows whose columns are global indices, on every rank.
std::map<std::pair<std::int64_t, std::int64_t>, double> entries_by_id(const DistributedGraph& g, const SparseRows& rows) {
  const Communicator& comm = *g.comm;
  Counts counts(static_cast<size_t>(comm.size()), g.n_local());
  std::vector<std::int64_t> send;
  for (int r = 0; r < comm.size(); ++r) send.insert(send.end(), g.original_id.begin(), g.original_id.end());
  const auto id_of = comm.alltoallv(send, counts);  // global index -> id (ranks hold consecutive ranges)
  std::vector<double> local;
  for (std::int64_t i = 0; i < rows.n_local(); ++i)
    for (auto k = rows.indptr[size_t(i)]; k < rows.indptr[size_t(i) + 1]; ++k)
      local.insert(local.end(), {double(g.original_id[size_t(i)]), double(id_of[size_t(rows.col[size_t(k)])]), rows.value[size_t(k)]});
  Counts triple_counts(static_cast<size_t>(comm.size()), static_cast<std::int64_t>(local.size()));
  std::vector<double> all_send;
  for (int r = 0; r < comm.size(); ++r) all_send.insert(all_send.end(), local.begin(), local.end());
  const auto all = comm.alltoallv(all_send, triple_counts);
  std::map<std::pair<std::int64_t, std::int64_t>, double> out;
  for (size_t k = 0; k < all.size(); k += 3) out[{std::int64_t(all[k]), std::int64_t(all[k + 1])}] = all[k + 2];
  return out;
}

WalkOptions repelling_packs() {
  WalkOptions w;
  w.walkers = 9;
  w.fixed_length = true;
  w.max_length = 3;
  w.coupling = Coupling::repelling;
  w.seed = 17;
  return w;
}

WalkOptions halting_repelling() {  // packs whose walkers halt one by one, so packs thin out as they split
  WalkOptions w;
  w.walkers = 8;
  w.p_halt = 0.25;
  w.max_length = 5;
  w.coupling = Coupling::repelling;
  w.seed = 29;
  return w;
}

WalkOptions halting_iid() {
  WalkOptions w;
  w.walkers = 5;
  w.p_halt = 0.3;
  w.max_length = 6;
  w.seed = 23;
  return w;
}

TEST(Frames, LocalGrfEqualsTheDistributedEngine) {
  const PointCloud cloud = random_cloud(150, 3, 5);
  PointGraphOptions o;
  o.knn = 3;
  const LocalGraph local = build_local_point_graph(cloud, o);
  KernelSpec kernel;
  kernel.beta = 0.8;
  for (const WalkOptions& walk : {repelling_packs(), halting_repelling(), halting_iid()})
    for (const char* partition : {"block", "metis"}) {
      const DistributedGraph g = build_point_graph(world(), cloud, o, partition, "cloud");
      const GrfRun run = compute_grf(g, kernel, walk, GrfEstimator::asymmetric, quiet_log());
      const auto expected = entries_by_id(g, run.phi[0]);
      LocalWalkStats stats;
      const SparseRows rows = local_grf(local, walk, run.f, stats);
      std::size_t count = 0;
      for (std::int64_t i = 0; i < rows.n_local(); ++i)
        for (auto k = rows.indptr[size_t(i)]; k < rows.indptr[size_t(i) + 1]; ++k, ++count) {
          const auto key = std::make_pair(local.id[size_t(i)], local.id[size_t(rows.col[size_t(k)])]);
          ASSERT_TRUE(expected.count(key)) << partition << ": entry " << key.first << "," << key.second;
          // The same walks (same entries, same hop count below), summed in another order: equal up to rounding.
          const double want = expected.at(key);
          EXPECT_NEAR(rows.value[size_t(k)], want, 1e-14 * (1 + std::abs(want))) << partition << " " << key.first << "," << key.second;
        }
      EXPECT_EQ(count, expected.size()) << partition;
      EXPECT_EQ(stats.hops, run.walks[0].hops) << partition;
    }
}

FrameConfig frame_config() {
  FrameConfig c;
  c.graph.knn = 3;
  c.walk = repelling_packs();
  c.features.seed = 17;
  c.synthetic_d = 6;
  c.synthetic_dv = 4;
  return c;
}

TEST(Frames, FrameAttentionEqualsRunAttentionOnThePointGraph) {
  const FrameConfig config = frame_config();
  const FrameAttention attention(config, config.synthetic_d);
  Frame frame;
  frame.cloud = random_cloud(90, 2, 8);
  FrameAttention::Times times;
  const RowMatrix rows = attention.run(frame, times).output;
  AttentionConfig single;
  single.walk = config.walk;
  single.estimator = GrfEstimator::asymmetric;
  single.features = config.features;
  for (const char* partition : {"block", "metis"}) {
    const DistributedGraph g = build_point_graph(world(), frame.cloud, config.graph, partition, "frame");
    const QkvRows qkv = synthetic_qkv(g, 1, config.synthetic_d, config.synthetic_dv, config.walk.seed);
    const auto heads = run_attention(g, qkv, single, quiet_log());
    for (std::int64_t i = 0; i < g.n_local(); ++i)
      for (Eigen::Index c = 0; c < rows.cols(); ++c) {
        const double expected = heads[0].output(i, c), got = rows(g.original_id[size_t(i)], c);
        // Column order within a row follows the partition's numbering, so sums may round differently.
        EXPECT_NEAR(got, expected, 1e-12 * (1 + std::abs(expected))) << partition << " node " << g.original_id[size_t(i)];
      }
  }
}

TEST(Frames, StackRowsDoNotDependOnRanksOrBatches) {
  const std::vector<std::int64_t> sizes = {30, 12, 45, 20, 33, 8};
  std::vector<std::int64_t> offsets = {0};
  for (auto s : sizes) offsets.push_back(offsets.back() + s);
  const PointCloud all = random_cloud(offsets.back(), 3, 99);
  const std::string stack_path = shared_temp_path("frames-stack.h5");
  {
    H5Output out(world(), stack_path);
    out.write_replicated<double>("/frames/points", all.coords, {static_cast<std::uint64_t>(offsets.back()), 3});
    out.write_replicated<std::int64_t>("/frames/offsets", offsets);
    out.commit();
  }
  const FrameStack stack = read_frame_stack(stack_path);
  ASSERT_EQ(stack.frames(), 6);
  const FrameConfig config = frame_config();
  const FrameAttention attention(config, config.synthetic_d);
  for (std::int64_t batch : {1, 4}) {
    const std::string out_path = shared_temp_path("frames-out-" + std::to_string(batch) + ".h5");
    {
      H5Output out(world(), out_path);
      const FramesSummary s = run_frames(world(), stack, attention, config.synthetic_dv, batch, &out, quiet_log());
      EXPECT_EQ(s.frames, 6);
      EXPECT_EQ(s.points, offsets.back());
      out.commit();
    }
    const H5Input in(out_path);
    const auto rows = in.read_rows_double("/frames/attention", 0, static_cast<std::uint64_t>(offsets.back()));
    const H5Input stack_in(stack_path);
    for (std::int64_t f = 0; f < 6; ++f) {
      FrameAttention::Times times;
      const RowMatrix expected = attention.run(read_frame(stack_in, stack, f), times).output;
      for (std::int64_t i = 0; i < expected.rows(); ++i)
        for (Eigen::Index c = 0; c < expected.cols(); ++c)
          ASSERT_EQ(rows[size_t((offsets[size_t(f)] + i) * expected.cols() + c)], expected(i, c)) << "frame " << f << " batch " << batch;
    }
    world().barrier();
    if (world().is_root()) std::filesystem::remove(out_path);
  }
  world().barrier();
  if (world().is_root()) std::filesystem::remove(stack_path);
}

}  // namespace
}  // namespace graphrf
