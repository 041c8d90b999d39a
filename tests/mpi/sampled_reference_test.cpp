// Sampled references (exact kernel columns by Chebyshev expansion, sampled relative errors) against dense
// computations written here: with every node sampled they must reproduce the dense errors, at any rank count
// and partition; with a sample, the dense error must lie within a few standard errors.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>

#include "graphrf/attention/attention_pipeline.hpp"
#include "graphrf/attention/whitening.hpp"
#include "graphrf/grf/dense_gather.hpp"
#include "graphrf/grf/grf_pipeline.hpp"
#include "graphrf/graph/laplacian_operator.hpp"
#include "graphrf/reference/sampled_attention_reference.hpp"
#include "graphrf/reference/sampled_embedding_reference.hpp"
#include "graphrf/reference/sampled_kernel_reference.hpp"
#include "mpi_test_support.hpp"

using namespace graphrf;
using graphrf::testing::world;
using graphrf::testing::load;
using graphrf::testing::quiet_log;

namespace {

// exp(-beta (I - W)) by this test's own eigendecomposition of the dense W (rank 0 only).
Eigen::MatrixXd dense_diffusion(const Eigen::MatrixXd& w, double beta) {
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(w);
  const Eigen::VectorXd g = (-beta * (1.0 - es.eigenvalues().array())).exp().matrix();
  return es.eigenvectors() * g.asDiagonal() * es.eigenvectors().transpose();
}

double frobenius_ratio(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) { return (a - b).norm() / b.norm(); }

// Row-normalised attention with weights S (N x N): (S V) / rowsum(S).
Eigen::MatrixXd weighted_rows(const Eigen::MatrixXd& s, const Eigen::MatrixXd& v) {
  Eigen::MatrixXd out = s * v;
  for (Eigen::Index i = 0; i < out.rows(); ++i) out.row(i) /= s.row(i).sum();
  return out;
}

GrfRun diffusion_grf(const DistributedGraph& g, GrfEstimator estimator, double beta) {
  KernelSpec k;
  k.kind = KernelKind::diffusion;
  k.beta = beta;
  WalkOptions w;
  w.walkers = 16;
  w.p_halt = 0.3;
  w.max_length = 40;
  w.seed = 5;
  return compute_grf(g, k, w, estimator, quiet_log());
}

}  // namespace

TEST(SampledReference, AllNodesSampledGiveTheDenseKernelError) {
  for (const char* partition : {"block", "metis"}) {
    const auto g = load("grid:9x11", partition);
    const Eigen::MatrixXd w = gather_dense_w(g, WalkOptions{});
    const Eigen::MatrixXd exact = world().is_root() ? dense_diffusion(w, 0.8) : Eigen::MatrixXd();
    for (auto estimator : {GrfEstimator::symmetric, GrfEstimator::two_ensembles, GrfEstimator::asymmetric}) {
      const GrfRun run = diffusion_grf(g, estimator, 0.8);
      KernelSpec k;
      k.beta = 0.8;
      const auto columns = sampled_kernel_columns(g, k, WalkOptions{}, g.n_global(), 1);
      ASSERT_EQ(columns.sample.size(), g.n_global());
      // Every node sampled: column c is node with canonical index c, i.e. the columns are M up to the
      // canonical -> global permutation, gathered here by row blocks.
      const Eigen::MatrixXd exact_cols = gather_dense_block(world(), columns.exact, g.n_global());
      Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> canonical(g.n_local(), 1);
      for (std::int64_t i = 0; i < g.n_local(); ++i) canonical(i, 0) = double(g.canonical_index[size_t(i)]);
      const Eigen::MatrixXd canonical_of_global = gather_dense_block(world(), canonical, g.n_global());
      const Eigen::MatrixXd estimate = dense_kernel_estimate(g, run);
      const SampledError e = sampled_column_error(g, sampled_estimate_columns(g, run, columns.sample), columns.exact);
      if (world().is_root()) {
        double worst = 0;
        for (Eigen::Index i = 0; i < exact.rows(); ++i)
          for (Eigen::Index j = 0; j < exact.cols(); ++j)
            worst = std::max(worst, std::abs(exact_cols(i, Eigen::Index(canonical_of_global(j, 0))) - exact(i, j)));
        EXPECT_LE(worst, 1e-11) << "Chebyshev columns vs the dense matrix exponential, " << partition;
        const double dense_error = frobenius_ratio(estimate, exact);
        EXPECT_NEAR(e.value, dense_error, 1e-9 * dense_error) << partition << " " << estimator_name(estimator);
        EXPECT_EQ(e.standard_error, 0.0);
      }
    }
  }
}

TEST(SampledReference, SampledKernelErrorIsWithinItsStandardError) {
  const auto g = load("grid:16x16", "metis");
  const GrfRun run = diffusion_grf(g, GrfEstimator::symmetric, 1.0);
  KernelSpec k;
  const Eigen::MatrixXd w = gather_dense_w(g, WalkOptions{});
  const Eigen::MatrixXd estimate = dense_kernel_estimate(g, run);
  double dense_error = 0;
  if (world().is_root()) dense_error = frobenius_ratio(estimate, dense_diffusion(w, 1.0));
  world().broadcast(dense_error);
  const auto columns = sampled_kernel_columns(g, k, WalkOptions{}, 48, 11);
  const SampledError e = sampled_column_error(g, sampled_estimate_columns(g, run, columns.sample), columns.exact);
  EXPECT_EQ(e.samples, 48);
  EXPECT_GT(e.standard_error, 0.0);
  // Under the normal approximation of the ratio estimator, |estimate - truth| > 5 SE has probability 6e-7.
  EXPECT_LE(std::abs(e.value - dense_error), 5 * e.standard_error) << e.value << " vs " << dense_error;
}

// feature: relu (its kernel is the feature product) or dark (exp(q^T Sigma k / sqrt(d)) with the whitening Sigma).
void expect_sampled_errors_equal_dense(FeatureKind feature) {
  const auto g = load("random:60:4:3", "metis");
  const auto qkv = synthetic_qkv(g, 1, 4, 3, 2);
  AttentionConfig config;
  config.features.kind = feature;
  config.walk.walkers = 8;
  config.walk.p_halt = 0.4;
  config.walk.seed = 9;
  const auto heads = run_attention(g, qkv, config, quiet_log());
  const auto& r = heads[0];
  const auto columns = sampled_kernel_columns(g, r.kernel, config.walk, g.n_global(), 3);
  const auto errors = sampled_attention_errors(g, columns.sample, qkv.q[0], qkv.k[0], qkv.v[0], r.phi_q, r.phi_k, r.output,
                                               r.linear, columns.exact, sampled_estimate_columns(g, r.grf, columns.sample),
                                               r.feature_kernel);
  auto dense = [&](const RowMatrix& m) { return gather_dense_block(world(), m, g.n_global()); };
  const Eigen::MatrixXd q = dense(qkv.q[0]), k = dense(qkv.k[0]), v = dense(qkv.v[0]), pq = dense(r.phi_q),
                        pk = dense(r.phi_k), out = dense(r.output), lin = dense(r.linear);
  const Eigen::MatrixXd w = gather_dense_w(g, config.walk), est = dense_kernel_estimate(g, r.grf);
  const Eigen::MatrixXd whitening = whitening_matrix(world(), qkv.q[0], qkv.k[0], 4, std::pow(4.0, -0.25));  // M
  if (!world().is_root()) return;
  const Eigen::MatrixXd m = dense_diffusion(w, 1.0);
  const Eigen::MatrixXd soft = (q * k.transpose() / 2.0).array().exp().matrix();  // sqrt(d) = 2
  const Eigen::MatrixXd feat = pq * pk.transpose();
  // The kernel the features estimate: relu's feature product, or dark's exp(q^T Sigma k / sqrt(d)).
  Eigen::MatrixXd own = feat;
  if (feature == FeatureKind::dark) {
    const Eigen::MatrixXd sigma = whitening.transpose() * whitening;  // Lambda^-1
    own = (q * sigma * k.transpose() / 2.0).array().exp().matrix();
  }
  const double expected[] = {frobenius_ratio(out, weighted_rows(soft, v)),
                             frobenius_ratio(out, weighted_rows(soft.cwiseProduct(m), v)),
                             frobenius_ratio(out, weighted_rows(feat.cwiseProduct(m), v)),
                             frobenius_ratio(out, weighted_rows(feat.cwiseProduct(est), v)), frobenius_ratio(out, lin),
                             frobenius_ratio(out, weighted_rows(own, v)),
                             frobenius_ratio(out, weighted_rows(own.cwiseProduct(m), v))};
  const SampledError got[] = {errors.softmax, errors.masked_softmax, errors.masked_linear, errors.grf_dense, errors.linear,
                              errors.kernel, errors.masked_kernel};
  for (int i = 0; i < 7; ++i) {
    EXPECT_NEAR(got[i].value, expected[i], 1e-8 * std::max(expected[i], 1e-6)) << i;
    EXPECT_EQ(got[i].standard_error, 0.0);
  }
  EXPECT_LT(errors.grf_dense.value, 1e-10);  // the distributed GRF result is the estimate-masked attention
}

TEST(SampledReference, AttentionWithAllNodesSampledGivesTheDenseErrors) { expect_sampled_errors_equal_dense(FeatureKind::relu); }

TEST(SampledReference, DarkKernelReferenceUsesItsSigma) { expect_sampled_errors_equal_dense(FeatureKind::dark); }

TEST(SampledReference, EmbeddingErrorWithAllNodesSampledIsTheDenseError) {
  const auto g = load("grid:7x9", "block");
  // Any row-distributed embedding works: take a fixed function of the global row index.
  Eigen::MatrixXd phi(g.n_local(), 3);
  for (std::int64_t i = 0; i < g.n_local(); ++i)
    for (int c = 0; c < 3; ++c) phi(i, c) = std::cos(0.3 * static_cast<double>(g.first() + i) * (c + 1));
  const auto h = [](double lambda) { return std::exp(-2.0 * lambda); };
  const auto e = sampled_embedding_error(g, normalized_laplacian_operator(g), 2.0, phi, h, g.n_global(), 1);
  const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> rows = phi;
  const Eigen::MatrixXd all = gather_dense_block(world(), rows, g.n_global());
  const Eigen::MatrixXd w = gather_dense_w(g, WalkOptions{});
  if (!world().is_root()) return;
  const double expected = frobenius_ratio(all * all.transpose(), dense_diffusion(w, 2.0));
  EXPECT_NEAR(e.frobenius.value, expected, 1e-9 * expected);
  EXPECT_LE(e.truncation_bound, 1e-11);
}
