// The frames path's pieces without MPI: the split of frames over ranks, Alg. 2 on one process against the
// dense formula, and the unbiasedness of fixed-length GRFs built by one process.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "graphrf/attention/masked_attention.hpp"
#include "graphrf/frames/frame_run.hpp"
#include "graphrf/grf/local_grf.hpp"

namespace graphrf {
namespace {

TEST(Frames, SplitIsContiguousAndBalancedByPoints) {
  const std::vector<std::int64_t> offsets = {0, 10, 200, 210, 220, 400, 401, 500};
  for (int ranks = 1; ranks <= 9; ++ranks) {
    const auto first = split_frames(offsets, ranks);
    ASSERT_EQ(first.size(), size_t(ranks) + 1);
    EXPECT_EQ(first.front(), 0);
    EXPECT_EQ(first.back(), 7);
    for (int r = 0; r < ranks; ++r) {
      EXPECT_LE(first[size_t(r)], first[size_t(r) + 1]);
      // A rank's points exceed its share by less than the largest frame (190 points).
      const auto points = offsets[size_t(first[size_t(r) + 1])] - offsets[size_t(first[size_t(r)])];
      EXPECT_LT(double(points), 500.0 / ranks + 190.0) << ranks << " ranks, rank " << r;
    }
  }
}

TEST(Frames, LocalAsymmetricAttentionEqualsTheDenseFormula) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(0.1, 1.0);
  const int n = 7, m = 3, dv = 2;
  Eigen::MatrixXd g = Eigen::MatrixXd::Zero(n, n);
  SparseRows rows;
  rows.indptr.push_back(0);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j)
      if ((i + 2 * j) % 3 != 1 || i == j) {
        g(i, j) = u(rng);
        rows.col.push_back(j);
        rows.value.push_back(g(i, j));
      }
    rows.indptr.push_back(static_cast<std::int64_t>(rows.col.size()));
  }
  RowMatrix pq(n, m), pk(n, m), v(n, dv);
  for (int i = 0; i < n; ++i) {
    for (int a = 0; a < m; ++a) pq(i, a) = u(rng), pk(i, a) = u(rng);
    for (int t = 0; t < dv; ++t) v(i, t) = u(rng) - 0.5;
  }
  // out = (G o (Phi_Q Phi_K^T)) V, each row divided by its row sum.
  const Eigen::MatrixXd scores = g.cwiseProduct(Eigen::MatrixXd(pq) * Eigen::MatrixXd(pk).transpose());
  const Eigen::MatrixXd expected = (scores * Eigen::MatrixXd(v)).array().colwise() / scores.rowwise().sum().array();
  AttentionStats stats;
  const std::vector<std::int64_t> identity = {0, 1, 2, 3, 4, 5, 6};
  const RowMatrix got = local_asymmetric_attention(rows, pq, pk, v, identity, NormalizerPolicy{BadNormalizer::error, 1e-12}, stats);
  EXPECT_LT((Eigen::MatrixXd(got) - expected).cwiseAbs().maxCoeff(), 1e-13);
  EXPECT_EQ(stats.bad_rows, 0);
  // The same graph with its nodes stored in another order: node j of the stored graph is row perm[j] of the
  // inputs and of the result, which must not change.
  const std::vector<std::int64_t> perm = {3, 0, 6, 1, 5, 2, 4};
  std::vector<std::int64_t> node_of_row(7);
  for (int j = 0; j < n; ++j) node_of_row[size_t(perm[size_t(j)])] = j;
  SparseRows stored;
  stored.indptr.push_back(0);
  for (int j = 0; j < n; ++j) {
    const auto r = perm[size_t(j)];
    for (auto k = rows.indptr[size_t(r)]; k < rows.indptr[size_t(r) + 1]; ++k) {
      stored.col.push_back(node_of_row[size_t(rows.col[size_t(k)])]);
      stored.value.push_back(rows.value[size_t(k)]);
    }
    stored.indptr.push_back(static_cast<std::int64_t>(stored.col.size()));
  }
  const RowMatrix permuted = local_asymmetric_attention(stored, pq, pk, v, perm, NormalizerPolicy{BadNormalizer::error, 1e-12}, stats);
  EXPECT_LT((Eigen::MatrixXd(permuted) - expected).cwiseAbs().maxCoeff(), 1e-13);
}

// A 6-node graph: a 5-cycle with a pendant node, weights a_ij = 1 except one edge of weight 2.
LocalGraph small_graph() {
  LocalGraph g;
  const std::vector<std::vector<std::pair<int, double>>> adj = {
      {{1, 1.0}, {4, 1.0}, {5, 2.0}}, {{0, 1.0}, {2, 1.0}}, {{1, 1.0}, {3, 1.0}}, {{2, 1.0}, {4, 1.0}}, {{0, 1.0}, {3, 1.0}}, {{0, 2.0}}};
  for (size_t i = 0; i < adj.size(); ++i) {
    g.id.push_back(static_cast<std::int64_t>(i));
    g.canonical.push_back(static_cast<std::int64_t>(i));
    for (const auto& [j, w] : adj[i]) g.col.push_back(j), g.weight.push_back(w);
    g.row_ptr.push_back(static_cast<std::int64_t>(g.col.size()));
  }
  normalize_local_graph(g);
  return g;
}

TEST(Frames, FixedLengthGrfsAreUnbiasedForTheTruncatedSeries) {
  const LocalGraph g = small_graph();
  const int n = 6, T = 3;
  Eigen::MatrixXd w = Eigen::MatrixXd::Zero(n, n);
  for (int i = 0; i < n; ++i)
    for (auto k = g.row_ptr[size_t(i)]; k < g.row_ptr[size_t(i) + 1]; ++k) w(i, g.col[size_t(k)]) = g.normalized_weight[size_t(k)];
  const std::vector<double> f = {1.0, 0.7, 0.3, 0.1};
  Eigen::MatrixXd expected = Eigen::MatrixXd::Zero(n, n), power = Eigen::MatrixXd::Identity(n, n);
  for (int t = 0; t <= T; ++t, power = power * w) expected += f[size_t(t)] * power;
  WalkOptions walk;
  walk.walkers = 200000;
  walk.fixed_length = true;
  walk.max_length = T;
  walk.seed = 12;
  LocalWalkStats stats;
  const SparseRows rows = local_grf(g, walk, f, stats);
  EXPECT_EQ(stats.hops, n * walk.walkers * T);
  Eigen::MatrixXd got = Eigen::MatrixXd::Zero(n, n);
  for (int i = 0; i < n; ++i)
    for (auto k = rows.indptr[size_t(i)]; k < rows.indptr[size_t(i) + 1]; ++k) got(i, rows.col[size_t(k)]) = rows.value[size_t(k)];
  // One walker's contribution to an entry lies in [0, B] with B = sum_t f_t max(w deg)^t (loads multiply
  // W_vu deg(v) per hop). Hoeffding: P(|mean - E| > eps) <= 2 exp(-2 n eps^2 / B^2); with eps below, each of
  // the 36 entries fails with probability <= 1e-10, all together <= 4e-9.
  double max_factor = 0;
  for (int i = 0; i < n; ++i)
    for (auto k = g.row_ptr[size_t(i)]; k < g.row_ptr[size_t(i) + 1]; ++k)
      max_factor = std::max(max_factor, g.normalized_weight[size_t(k)] * double(g.row_ptr[size_t(i) + 1] - g.row_ptr[size_t(i)]));
  double bound = 0;
  for (int t = 0; t <= T; ++t) bound += f[size_t(t)] * std::pow(max_factor, t);
  const double eps = bound * std::sqrt(std::log(2.0 / 1e-10) / (2.0 * double(walk.walkers)));
  EXPECT_LT((got - expected).cwiseAbs().maxCoeff(), eps);
  // And the estimate is informative: eps is well below the entries it checks.
  EXPECT_LT(eps, 0.05);
}

}  // namespace
}  // namespace graphrf
