// GRF-masked attention across ranks against dense computations written here: Alg. 1 and 2, multi-head,
// the 1/sqrt(n) approach to the exact mask, Q/K/V files with their own node order, bad normalisers.
#include <gtest/gtest.h>

#include <cmath>

#include "graphrf/attention/attention_pipeline.hpp"
#include "graphrf/grf/dense_gather.hpp"
#include "graphrf/grf/dense_reference.hpp"
#include "graphrf/io/h5_output.hpp"
#include "mpi_test_support.hpp"

using namespace graphrf;
using graphrf::testing::shared_temp_path;
using graphrf::testing::world;
using graphrf::testing::load;
using graphrf::testing::quiet_log;

namespace {

// A row block gathered densely on rank 0 (rows in global index order).
Eigen::MatrixXd dense(const DistributedGraph& g, const RowMatrix& local) {
  return gather_dense_block(world(), local, g.n_global());
}

// The masked attention written out entry by entry: out_i = sum_j s_ij M_ij v_j / sum_j s_ij M_ij.
Eigen::MatrixXd dense_masked(const Eigen::MatrixXd& pq, const Eigen::MatrixXd& pk, const Eigen::MatrixXd& v,
                             const Eigen::MatrixXd& mask) {
  Eigen::MatrixXd out = Eigen::MatrixXd::Zero(pq.rows(), v.cols());
  for (Eigen::Index i = 0; i < pq.rows(); ++i) {
    double den = 0;
    for (Eigen::Index j = 0; j < pk.rows(); ++j) {
      const double s = pq.row(i).dot(pk.row(j)) * mask(i, j);
      out.row(i) += s * v.row(j);
      den += s;
    }
    out.row(i) /= den;
  }
  return out;
}

AttentionConfig config_for(GrfEstimator estimator, FeatureKind feature) {
  AttentionConfig c;
  c.kernel.kind = KernelKind::diffusion;
  c.kernel.beta = 1.0;
  c.walk.walkers = 8;
  c.walk.p_halt = 0.4;
  c.walk.max_length = 20;
  c.walk.seed = 3;
  c.estimator = estimator;
  c.features.kind = feature;
  c.features.m = feature == FeatureKind::favor ? 16 : 0;
  return c;
}

// d_v = 5 sums every numerator in one partial block of the passes' kBlock = 8 values; d_v = 19 in two whole
// blocks and a partial one.
void expect_matches_dense(const std::string& partition, GrfEstimator estimator, FeatureKind feature, std::int64_t dv = 5) {
  const auto g = load("random:70:4:13", partition);
  const auto qkv = synthetic_qkv(g, 2, 6, dv, 17);
  const auto config = config_for(estimator, feature);
  const auto heads = run_attention(g, qkv, config, quiet_log());
  for (int h = 0; h < 2; ++h) {
    const auto& r = heads[size_t(h)];
    const Eigen::MatrixXd pq = dense(g, r.phi_q), pk = dense(g, r.phi_k), v = dense(g, qkv.v[size_t(h)]),
                          out = dense(g, r.output);
    const Eigen::MatrixXd g1 = gather_dense_rows(world(), r.grf.phi[0], g.first(), g.n_global());
    const Eigen::MatrixXd g2 = gather_dense_rows(world(), r.grf.phi.back(), g.first(), g.n_global());
    if (!world().is_root()) continue;
    Eigen::MatrixXd mask = estimator == GrfEstimator::asymmetric ? g1 : Eigen::MatrixXd(g1 * g2.transpose());
    const Eigen::MatrixXd want = dense_masked(pq, pk, v, mask);
    EXPECT_LT((out - want).norm() / want.norm(), 1e-12) << partition << " head " << h << " d_v " << dv;
  }
}

}  // namespace

TEST(Attention, SymmetricEqualsDenseForTwoPartitioners) {
  expect_matches_dense("block", GrfEstimator::symmetric, FeatureKind::relu);
  expect_matches_dense("metis", GrfEstimator::symmetric, FeatureKind::favor);
  expect_matches_dense("block", GrfEstimator::symmetric, FeatureKind::favor, 19);
}

TEST(Attention, TwoEnsemblesAndAsymmetricEqualDense) {
  expect_matches_dense("ptscotch", GrfEstimator::two_ensembles, FeatureKind::elu1);
  expect_matches_dense("metis", GrfEstimator::asymmetric, FeatureKind::favor);
  expect_matches_dense("block", GrfEstimator::two_ensembles, FeatureKind::relu, 19);
}

TEST(Attention, MultiHeadEqualsSingleHeadRuns) {
  const auto g = load("grid:8x9", "metis");
  const auto qkv = synthetic_qkv(g, 3, 4, 3, 5);
  auto config = config_for(GrfEstimator::symmetric, FeatureKind::relu);
  config.head_betas = {0.5, 1.0, 2.0};
  const auto together = run_attention(g, qkv, config, quiet_log());
  for (int h = 0; h < 3; ++h) {
    QkvRows one;
    one.heads = 1;
    one.d = qkv.d;
    one.dv = qkv.dv;
    one.q = {qkv.q[size_t(h)]};
    one.k = {qkv.k[size_t(h)]};
    one.v = {qkv.v[size_t(h)]};
    auto single = config;
    single.head_betas = {config.head_betas[size_t(h)]};
    single.walk.ensemble = 0;
    single.features.seed = config.features.seed + std::uint64_t(h);
    // Head h of the multi-head run walks ensemble 2h: reproduce it through the walk options.
    const auto run = compute_grf(g, [&] { KernelSpec k = config.kernel; k.beta = config.head_betas[size_t(h)]; return k; }(),
                                 [&] { WalkOptions w = config.walk; w.ensemble = 2 * std::uint64_t(h); return w; }(),
                                 GrfEstimator::symmetric, quiet_log());
    AttentionStats stats;
    const auto out = grf_masked_attention(g, run.phi[0], run.phi[0], together[size_t(h)].phi_q, together[size_t(h)].phi_k,
                                          qkv.v[size_t(h)], together[size_t(h)].policy, stats);
    EXPECT_EQ((out - together[size_t(h)].output).norm(), 0.0) << h;
  }
  // Shared walks: the same walks for every head, and M_t reused with each head's f.
  config.shared_walks = true;
  const auto shared = run_attention(g, qkv, config, quiet_log());
  EXPECT_EQ(shared[1].grf.by_length[0].value, shared[0].grf.by_length[0].value);
  EXPECT_NE(shared[1].grf.phi[0].value, shared[0].grf.phi[0].value);
}

TEST(Attention, ApproachesExactMaskLikeOneOverSqrtN) {
  // Mean squared relative error against the exact M-masked linear attention over 12 seeds at n = 4 and
  // n = 64 walkers (two-ensemble estimator, elu+1 features). The error is dominated by the GRF noise,
  // whose variance scales like 1/n: the expected ratio is 16. A ratio outside [5, 50] needs both
  // 12-sample means to be off by a factor of about 1.8 (more than 4 standard errors for a relative
  // spread of 1 per sample); we bound the failure probability by 1e-3.
  const auto g = load("random:60:4:2", "block");
  const auto qkv = synthetic_qkv(g, 1, 4, 3, 9);
  auto config = config_for(GrfEstimator::two_ensembles, FeatureKind::elu1);
  const auto w = gather_dense_w(g, config.walk);
  double mse[2] = {0, 0};
  const std::int64_t ns[2] = {4, 64};
  for (int which = 0; which < 2; ++which)
    for (int r = 0; r < 12; ++r) {
      config.walk.walkers = ns[which];
      config.walk.seed = 100 + std::uint64_t(r);
      const auto heads = run_attention(g, qkv, config, quiet_log());
      const Eigen::MatrixXd pq = dense(g, heads[0].phi_q), pk = dense(g, heads[0].phi_k), v = dense(g, qkv.v[0]),
                            out = dense(g, heads[0].output);
      if (!world().is_root()) continue;
      const Eigen::MatrixXd want = dense_masked(pq, pk, v, kernel_matrix_exact(config.kernel, w));
      mse[which] += std::pow((out - want).norm() / want.norm(), 2) / 12;
    }
  world().broadcast(mse);
  EXPECT_GT(mse[0] / mse[1], 5.0) << mse[0] << " " << mse[1];
  if (std::getenv("GRAPHRF_TEST_VERBOSE") && world().is_root()) std::printf("mse ratio %g (%g / %g)\n", mse[0] / mse[1], mse[0], mse[1]);
  EXPECT_LT(mse[0] / mse[1], 50.0) << mse[0] << " " << mse[1];
}

TEST(Attention, QkvFileWithItsOwnNodeOrder) {
  // A file whose rows list the nodes of a 5x5 grid in reverse id order, with /nodes/id saying so.
  const auto g = load("grid:5x5", "metis");
  const std::string path = shared_temp_path("qkv.h5");
  {
    const std::int64_t n = 25;
    const int rank = world().rank(), p = world().size();
    const std::int64_t begin = n * rank / p, end = n * (rank + 1) / p;
    std::vector<double> q, k, v;
    std::vector<std::int64_t> ids;
    for (std::int64_t r = begin; r < end; ++r) {
      const std::int64_t id = n - 1 - r;
      ids.push_back(id);
      for (int h = 0; h < 2; ++h)
        for (int c = 0; c < 3; ++c) {
          q.push_back(double(id) + 0.1 * h + 0.01 * c);
          k.push_back(-double(id) - 0.1 * h - 0.01 * c);
        }
      for (int h = 0; h < 2; ++h) v.push_back(1000.0 * double(id) + h);
    }
    H5Output out(world(), path);
    out.write_rows<double>("/q", q, {2, 3});
    out.write_rows<double>("/k", k, {2, 3});
    out.write_rows<double>("/v", v, {2, 1});
    out.write_rows<std::int64_t>("/nodes/id", ids);
    out.commit();
  }
  const auto qkv = read_qkv(g, path);
  EXPECT_EQ(qkv.heads, 2);
  EXPECT_EQ(qkv.d, 3);
  EXPECT_EQ(qkv.dv, 1);
  for (std::int64_t i = 0; i < g.n_local(); ++i) {
    const double id = double(g.original_id[size_t(i)]);
    for (int h = 0; h < 2; ++h) {
      EXPECT_EQ(qkv.q[size_t(h)](i, 2), id + 0.1 * h + 0.02);
      EXPECT_EQ(qkv.k[size_t(h)](i, 1), -id - 0.1 * h - 0.01);
      EXPECT_EQ(qkv.v[size_t(h)](i, 0), 1000.0 * id + h);
    }
  }
  // A graph with a different node count is refused on every rank.
  const auto other = load("grid:4x4", "block");
  try {
    read_qkv(other, path);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_TRUE(e.collective());
    EXPECT_NE(std::string(e.what()).find("/q has 25 rows but the graph has 16 nodes"), std::string::npos) << e.what();
  }
  if (world().is_root()) std::remove(path.c_str());
}

TEST(Attention, NegativeModulationMakesBadNormalisersAnError) {
  // f = (1, -1.5): Phi = I - 1.5 W has negative entries, so masked scores and normalisers can be <= 0.
  const auto g = load("grid:6x6", "block");
  const auto qkv = synthetic_qkv(g, 1, 4, 2, 1);
  auto config = config_for(GrfEstimator::symmetric, FeatureKind::relu);
  config.kernel.kind = KernelKind::f;
  config.kernel.coefficients = {1.0, -1.5};
  config.walk.walkers = 2;
  try {
    run_attention(g, qkv, config, quiet_log());
    FAIL() << "no normaliser was <= eps";
  } catch (const InputError& e) {
    EXPECT_TRUE(e.collective());
    EXPECT_NE(std::string(e.what()).find("attention.normalizer"), std::string::npos) << e.what();
  }
  config.normalizer = "skip";
  const auto heads = run_attention(g, qkv, config, quiet_log());
  EXPECT_GT(heads[0].stats.bad_rows, 0);
  EXPECT_LE(heads[0].stats.denominator_min, 1e-12);
}
