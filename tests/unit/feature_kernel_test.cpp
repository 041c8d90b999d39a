// The kernel each feature map estimates (the target of `attention --reference`), against dense formulas
// written here: relu/elu1 the feature product, favor/trig exp(q^T k / sqrt(d)), dark exp(q^T M^T M k / sqrt(d)).
#include "graphrf/attention/feature_kernel.hpp"

#include <gtest/gtest.h>

#include <cmath>

using namespace graphrf;

namespace {

Eigen::MatrixXd test_rows(int rows, int cols, double phase) {
  Eigen::MatrixXd x(rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) x(i, j) = std::sin(1.3 * i + 0.7 * j + phase);
  return x;
}

// exp(l_ij - max_j l_ij) with l_ij = q_i^T S k_j, entry by entry.
Eigen::MatrixXd exp_scores(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k, const Eigen::MatrixXd& s) {
  Eigen::MatrixXd l(q.rows(), k.rows());
  for (Eigen::Index i = 0; i < q.rows(); ++i)
    for (Eigen::Index j = 0; j < k.rows(); ++j) l(i, j) = q.row(i).dot(s * k.row(j).transpose());
  for (Eigen::Index i = 0; i < q.rows(); ++i) l.row(i).array() -= l.row(i).maxCoeff();
  return l.array().exp().matrix();
}

const int kD = 4;
const Eigen::MatrixXd kQ = test_rows(5, kD, 0.2), kK = test_rows(6, kD, 1.1);

}  // namespace

TEST(FeatureKernel, DeterministicMapsUseTheirFeatureProduct) {
  for (const FeatureKind kind : {FeatureKind::relu, FeatureKind::elu1}) {
    FeatureOptions o;
    o.kind = kind;
    o.relu_scale = true;
    const FeatureMap map(o, kD);
    const FeatureKernel kernel = feature_kernel(map);
    EXPECT_FALSE(kernel.exponential);
    const Eigen::MatrixXd pq = map.apply(kQ, FeatureRole::query), pk = map.apply(kK, FeatureRole::key);
    Eigen::MatrixXd expected(kQ.rows(), kK.rows());
    for (Eigen::Index i = 0; i < kQ.rows(); ++i)
      for (Eigen::Index j = 0; j < kK.rows(); ++j) {
        double s = 0;
        for (int c = 0; c < kD; ++c) {
          const double q = kind == FeatureKind::relu ? std::max(kQ(i, c) / 2.0, 0.0) + 1e-8  // relu_scale: 1/sqrt(4)
                                                     : (kQ(i, c) > 0 ? kQ(i, c) + 1 : std::exp(kQ(i, c)));
          const double k = kind == FeatureKind::relu ? std::max(kK(j, c), 0.0) + 1e-8
                                                     : (kK(j, c) > 0 ? kK(j, c) + 1 : std::exp(kK(j, c)));
          s += q * k;
        }
        expected(i, j) = s;
      }
    EXPECT_TRUE(kernel_scores(kernel, kQ, kK, pq, pk).isApprox(expected, 1e-14)) << kernel.name;
    EXPECT_NE(kernel.name.find("phi(q)^T phi(k)"), std::string::npos) << kernel.name;
  }
}

TEST(FeatureKernel, FavorAndTrigEstimateTheSoftmaxKernel) {
  for (const FeatureKind kind : {FeatureKind::favor, FeatureKind::trig}) {
    FeatureOptions o;
    o.kind = kind;
    o.m = 8;
    const FeatureKernel kernel = feature_kernel(FeatureMap(o, kD));
    EXPECT_TRUE(kernel.exponential);
    const Eigen::MatrixXd expected = exp_scores(kQ, kK, Eigen::MatrixXd::Identity(kD, kD) / 2.0);  // 1/sqrt(4)
    EXPECT_TRUE(kernel_scores(kernel, kQ, kK, {}, {}).isApprox(expected, 1e-14)) << kernel.name;
    EXPECT_EQ(kernel.name, "softmax exp(q^T k / sqrt(d))");
  }
}

TEST(FeatureKernel, DarkEstimatesItsOwnSigmaKernelWithTheSoftmaxTemperature) {
  FeatureOptions o;
  o.kind = FeatureKind::dark;
  o.m = 8;
  const Eigen::MatrixXd m = test_rows(3, kD, 2.5);  // r = 3 < d: a rank-3 Sigma
  const FeatureKernel kernel = feature_kernel(FeatureMap(o, kD, &m));
  EXPECT_TRUE(kernel.exponential);
  const Eigen::MatrixXd sigma = m.transpose() * m;
  EXPECT_TRUE(kernel.sigma.isApprox(sigma, 1e-15));
  const Eigen::MatrixXd expected = exp_scores(kQ, kK, sigma / 2.0);
  EXPECT_TRUE(kernel_scores(kernel, kQ, kK, {}, {}).isApprox(expected, 1e-13));
  // Not the softmax kernel the old reference used.
  EXPECT_FALSE(kernel_scores(kernel, kQ, kK, {}, {}).isApprox(exp_scores(kQ, kK, Eigen::MatrixXd::Identity(kD, kD) / 2.0), 1e-3));
  EXPECT_EQ(kernel.name, "exp(q^T Sigma k / sqrt(d))");
}

TEST(FeatureKernel, DarkFeaturesAverageToTheirKernel) {
  // The features and their reference agree: the mean of phi(q)^T phi(k) over 4000 seeds is exp(l) with
  // l = q^T Sigma k / sqrt(d), within 5 standard errors (failure probability 5.7e-7 under the normal
  // approximation of the mean; the inputs are small, so the estimates have light tails).
  FeatureOptions o;
  o.kind = FeatureKind::dark;
  o.m = 4;
  o.draw = FrequencyDraw::iid;
  const Eigen::MatrixXd m = 0.5 * test_rows(kD, kD, 0.9) + Eigen::MatrixXd::Identity(kD, kD);
  Eigen::MatrixXd xy(2, kD);
  xy.row(0) = 0.6 * kQ.row(0);
  xy.row(1) = 0.6 * kK.row(1);
  const int n = 4000;
  double s1 = 0, s2 = 0;
  for (int r = 0; r < n; ++r) {
    o.seed = 1 + static_cast<std::uint64_t>(r);
    const Eigen::MatrixXd phi = FeatureMap(o, kD, &m).apply_unshifted(xy);
    const double e = phi.row(0).dot(phi.row(1));
    s1 += e;
    s2 += e * e;
  }
  const double mean = s1 / n, sd = std::sqrt((s2 - n * mean * mean) / (n - 1));
  const FeatureKernel kernel = feature_kernel(FeatureMap(o, kD, &m));
  const double exact = std::exp(kernel_logits(kernel, xy.topRows(1), xy.bottomRows(1))(0, 0));
  EXPECT_NEAR(mean, exact, 5 * sd / std::sqrt(n)) << "sd " << sd;
}
