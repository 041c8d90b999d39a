// GP regression and attention as library calls, without the CLI: the run's Report holds the figures the
// command prints (RESULT keys, in order) and where they are written, and the file the module's writer makes
// holds them. Graphs are generated; seeds are fixed.
#include <gtest/gtest.h>

#include <cmath>
#include <hdf5.h>

#include "graphrf/attention/attention_output.hpp"
#include "graphrf/attention/attention_run.hpp"
#include "graphrf/gp/gp_output.hpp"
#include "graphrf/gp/gp_run.hpp"
#include "graphrf/walks/pagerank_run.hpp"
#include "mpi_test_support.hpp"
#include "small_gp_options.hpp"

using namespace graphrf;
using graphrf::testing::load;
using graphrf::testing::quiet_log;
using graphrf::testing::world;

namespace {

std::vector<std::string> result_keys(const Report& report) {
  std::vector<std::string> keys;
  for (const auto& f : report.figures())
    if (!f.key.empty()) keys.push_back(f.key);
  return keys;
}

double read_attribute(const std::string& path, const char* object, const char* name) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  double value = std::nan("");
  const hid_t attribute = H5Aopen_by_name(file, object, name, H5P_DEFAULT, H5P_DEFAULT);
  H5Aread(attribute, H5T_NATIVE_DOUBLE, &value);
  H5Aclose(attribute);
  H5Fclose(file);
  return value;
}

}  // namespace

TEST(MethodRun, GpReportHasTheResultKeysAndTheFileItsAttributes) {
  const DistributedGraph g = load("grid:6x6", "block");
  const GpRun run = run_gp_regression(g, graphrf::testing::small_gp_options(0.3), quiet_log());
  EXPECT_EQ(result_keys(run.report),
            (std::vector<std::string>{"nodes", "train", "test", "sigma_f", "beta", "sigma_n", "learn_seconds", "predict_seconds",
                                      "walk_seconds", "predict_cg_iterations", "memory_estimate_mib", "peak_mib",
                                      "learn_cg_iterations_last", "lml_last", "rmse", "nlpd", "coverage"}));
  EXPECT_GT(run.memory_estimate_mib, 0.0);
  EXPECT_GT(run.peak_mib, 0.0);
  ASSERT_GT(run.observations.n_test, 0);
  EXPECT_EQ(std::get<std::int64_t>(run.report.find("nodes")->value), 36);
  EXPECT_EQ(std::get<std::int64_t>(run.report.find("train")->value) + std::get<std::int64_t>(run.report.find("test")->value),
            run.observations.n_train + run.observations.n_test);

  const graphrf::testing::SharedTempFile file("gp-run.h5", "");
  {
    H5Output out(world(), file.path());
    write_gp(out, g, run);
    out.commit();
  }
  world().barrier();
  EXPECT_EQ(read_attribute(file.path(), "/gp/metrics", "rmse"), run.metrics.rmse);
  EXPECT_EQ(read_attribute(file.path(), "/gp/theta", "sigma_n"), run.sigma_n);
  EXPECT_EQ(read_attribute(file.path(), "/gp/metrics", "n_test"), static_cast<double>(run.observations.n_test));
}

TEST(MethodRun, GpWithoutTestNodesKeepsNanMetricsInTheFileOnly) {
  const DistributedGraph g = load("grid:5x5", "block");
  const GpRun run = run_gp_regression(g, graphrf::testing::small_gp_options(0.0), quiet_log());
  EXPECT_EQ(run.report.find("rmse"), nullptr);
  EXPECT_EQ(run.report.key_values().find("rmse"), std::string::npos);
  bool written = false;
  for (const auto& f : run.report.figures())
    for (const auto& target : f.attributes)
      if (target.object == "/gp/metrics" && target.name == "rmse") written = std::isnan(std::get<double>(f.value));
  EXPECT_TRUE(written);
}

TEST(MethodRun, AttentionHeadFiguresFollowTheHeads) {
  const DistributedGraph g = load("grid:5x5", "block");
  AttentionRunOptions o;
  o.config.walk.walkers = 4;
  o.config.walk.p_halt = 0.4;
  o.config.walk.max_length = 8;
  o.heads = 2;
  o.synthetic = {4, 3};
  const AttentionRun run = run_graph_attention(g, o, quiet_log());
  ASSERT_EQ(run.heads.size(), 2u);
  Report report;
  for (int h = 0; h < 2; ++h) report.append(attention_head_figures(h, run.heads[static_cast<size_t>(h)]));
  EXPECT_EQ(result_keys(report), (std::vector<std::string>{"head0_denominator_min", "head0_bad_rows", "head1_denominator_min",
                                                           "head1_bad_rows"}));
  EXPECT_EQ(std::get<double>(report.find("head1_denominator_min")->value), run.heads[1].stats.denominator_min);
  EXPECT_EQ(run.qkv.dv, 3);
  EXPECT_GT(run.memory_estimate_mib, 0.0);
  EXPECT_GT(run.peak_mib, 0.0);
}

// A run whose memory estimate exceeds the limit is refused on every rank before it walks (no rank left waiting).
TEST(MethodRun, AttentionGpAndPageRankRefuseRunsBeyondTheMemoryLimit) {
  const DistributedGraph g = load("grid:5x5", "block");
  AttentionRunOptions attention;
  attention.synthetic = {4, 3};
  attention.memory_limit = 4096;
  EXPECT_THROW(run_graph_attention(g, attention, quiet_log()), InputError);
  GpRunOptions gp = graphrf::testing::small_gp_options(0.3);
  gp.memory_limit = 4096;
  EXPECT_THROW(run_gp_regression(g, gp, quiet_log()), InputError);
  PageRankRunOptions pagerank;
  pagerank.walk.max_length = pagerank_default_max_length(pagerank.walk.p_halt);
  pagerank.memory_limit = 4096;
  EXPECT_THROW(run_pagerank(g, pagerank, quiet_log()), InputError);
  pagerank.memory_limit = 0;  // the node's share: a 25-node run fits
  EXPECT_GT(run_pagerank(g, pagerank, quiet_log()).estimate.walks.walkers, 0);
}
