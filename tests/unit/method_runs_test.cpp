// info, pagerank, wavelet and couple runs as library calls on one process: their figures in the RESULT order, and a
// property of each result the command relies on.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "graphrf/graph/graph_info.hpp"
#include "graphrf/grf/couple_run.hpp"
#include "graphrf/reference/wavelet_reference.hpp"
#include "graphrf/spectral/wavelet_run.hpp"
#include "graphrf/walks/pagerank_run.hpp"
#include "method_run_support.hpp"

using namespace graphrf;

namespace {

using testing_support::grid;
using testing_support::keys;
using testing_support::silent;

}  // namespace

TEST(InfoRun, FiguresOfAGridOnOneRank) {
  Communicator self(MPI_COMM_SELF);
  const DistributedGraph g = grid(self);
  const GraphInfo info = run_info(g, silent());
  EXPECT_EQ(keys(info.report), (std::vector<std::string>{"nodes", "edges", "components", "isolated", "edge_cut", "ranks",
                                                         "load_seconds", "partition_seconds", "distribute_seconds"}));
  const auto count = [&](const char* key) { return std::get<std::int64_t>(info.report.find(key)->value); };
  EXPECT_EQ(count("nodes"), 42);
  EXPECT_EQ(count("edges"), 6 * 6 + 7 * 5);
  EXPECT_EQ(count("components"), 1);
  EXPECT_EQ(count("isolated"), 0);
  EXPECT_EQ(count("edge_cut"), 0);
  EXPECT_EQ(count("ranks"), 1);
  EXPECT_EQ(info.report.find("edges")->attributes.size(), 1u);
  EXPECT_EQ(info.report.find("components")->attributes[0].object, "/graph");
  EXPECT_EQ(max_weighted_degree(g), 4.0);
}

TEST(PageRankRun, EstimateSumsToOneAndTheReferenceAddsItsErrors) {
  Communicator self(MPI_COMM_SELF);
  const DistributedGraph g = grid(self);
  PageRankRunOptions o;
  o.walk.walkers = 16;
  o.walk.p_halt = 0.15;
  o.walk.max_length = pagerank_default_max_length(o.walk.p_halt);
  o.reference = true;
  const PageRankResult r = run_pagerank(g, o, silent());
  EXPECT_EQ(keys(r.report), (std::vector<std::string>{"nodes", "walkers", "walks", "hops", "walk_seconds", "l1_error",
                                                      "max_relative_error", "top_overlap", "reference_iterations",
                                                      "memory_estimate_mib", "peak_mib"}));
  EXPECT_EQ(r.walk.step, StepRule::uniform);  // an unweighted grid: weighted steps are the uniform ones
  EXPECT_NEAR(std::accumulate(r.estimate.rank.begin(), r.estimate.rank.end(), 0.0), 1.0, 1e-12);
  EXPECT_NEAR(std::accumulate(r.exact.rank.begin(), r.exact.rank.end(), 0.0), 1.0, 1e-10);
  EXPECT_EQ(std::get<std::int64_t>(r.report.find("top_overlap")->value), 42);  // every node is in the top 100
  o.reference = false;
  EXPECT_EQ(keys(run_pagerank(g, o, silent()).report).size(), 7u);
}

TEST(WaveletRun, CombinatorialSpectrumBoundAndSampledReferenceOfEveryNode) {
  Communicator self(MPI_COMM_SELF);
  const DistributedGraph g = grid(self);
  WaveletRunOptions o;
  o.kernel = [](double lambda) { return std::exp(-lambda); };
  o.kernel_description = "exp(-lambda)";
  o.laplacian = WaveletLaplacian::combinatorial;
  o.features.rank = 4;
  o.features.seed = 3;
  const WaveletRunResult r = run_wavelet(g, o, silent());
  EXPECT_EQ(keys(r.report), (std::vector<std::string>{"nodes", "embedding_dim", "oversample", "lambda_k", "seconds",
                                                     "memory_estimate_mib", "peak_mib"}));
  EXPECT_EQ(r.features.lambda_max, 8.0);  // Gershgorin: 2 max degree of the grid
  EXPECT_EQ(r.features.embedding_local.rows(), 42);
  ReferenceOptions dense;
  dense.enabled = true;
  ReferenceOptions sampled = dense;
  sampled.dense_max = 10;
  sampled.samples = 1000;
  const Report d = wavelet_reference(g, r, o, dense, silent()), s = wavelet_reference(g, r, o, sampled, silent());
  EXPECT_EQ(keys(s), (std::vector<std::string>{"frobenius_error", "frobenius_error_se", "reference_samples"}));
  EXPECT_EQ(keys(d).size(), 6u);
  const double de = std::get<double>(d.find("frobenius_error")->value), se = std::get<double>(s.find("frobenius_error")->value);
  EXPECT_GT(de, 0);
  EXPECT_NEAR(se, de, 1e-6 * de);
  EXPECT_EQ(std::get<std::int64_t>(s.find("reference_samples")->value), 42);
}

TEST(CoupleRun, SigmaIsAPermutationNoWorseThanTheIdentity) {
  Communicator self(MPI_COMM_SELF);
  const DistributedGraph g = grid(self);
  CoupleRunOptions o;
  o.learning.walk.p_halt = 0.5;
  o.learning.walk.max_length = 16;
  o.learning.order = 4;
  o.learning.samples = 8;
  o.start_nodes = 10;
  const CoupleResult r = run_couple(g, o, silent());
  EXPECT_EQ(keys(r.report), (std::vector<std::string>{"order", "start_nodes", "sigma", "cost_sigma", "cost_identity",
                                                      "cost_random", "cost_random_mean", "cost_seconds", "solve_seconds"}));
  std::vector<int> sorted = r.learned.sigma;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, (std::vector<int>{0, 1, 2, 3}));
  std::string csv = permutation_text(r.learned.sigma);
  std::replace(csv.begin(), csv.end(), ' ', ',');
  EXPECT_EQ(std::get<std::string>(r.report.find("sigma")->value), csv);
  EXPECT_LE(r.learned.cost_sigma, r.learned.cost_identity);
  EXPECT_LE(r.learned.cost_sigma, r.learned.cost_random_mean);
}
