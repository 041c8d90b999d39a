// Importance-sampled positive random features (Farzam et al. 2026, "Data-aware random feature kernel for
// transformers", Lemma 3.1 and Theorem 3.2): Sigma* against the formula of Theorem 3.2 on a diagonal and on a
// rotated Lambda, the log weights against Gaussian log densities, the error line when Sigma* is not a
// covariance, and unbiasedness of the weighted estimate of the softmax kernel.
//
// Statistical tolerance of the unbiasedness test: R = 4000 independent estimates (one seed each) of
// k(x, y) = exp(x^T y / sqrt(d)); accept |mean - k| <= 5 s / sqrt(R), s the sample standard deviation. Under
// the normal approximation of the mean this fails with probability 5.7e-7. The approximation is sound here:
// Lambda >= 0 makes Sigma* >= I, so the weight p_I/psi = sqrt(det Sigma*) exp(-w^T (I - Sigma*^-1) w / 2) is
// at most sqrt(det Sigma*) (about 2.6 below), and |x|, |y| <= 1, so every term has light tails.
#include "graphrf/attention/importance_sampling.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "graphrf/attention/feature_map.hpp"
#include "graphrf/core/error.hpp"

using namespace graphrf;

namespace {

// Theorem 3.2 written out: (I + 2 Lambda)(I - 2 Lambda)^-1.
Eigen::MatrixXd theorem_sigma(const Eigen::MatrixXd& lambda) {
  const Eigen::MatrixXd i = Eigen::MatrixXd::Identity(lambda.rows(), lambda.cols());
  return (i + 2 * lambda) * (i - 2 * lambda).inverse();
}

// A rotation of R^4: the product of two Givens rotations.
Eigen::MatrixXd rotation() {
  Eigen::MatrixXd r = Eigen::MatrixXd::Identity(4, 4);
  const double a = 0.7, b = -1.1;
  Eigen::MatrixXd g1 = Eigen::MatrixXd::Identity(4, 4), g2 = Eigen::MatrixXd::Identity(4, 4);
  g1(0, 0) = g1(1, 1) = std::cos(a);
  g1(0, 1) = -std::sin(a);
  g1(1, 0) = std::sin(a);
  g2(1, 1) = g2(3, 3) = std::cos(b);
  g2(1, 3) = -std::sin(b);
  g2(3, 1) = std::sin(b);
  return r * g1 * g2;
}

void expect_proposal_matches_theorem(const Eigen::MatrixXd& lambda) {
  const ImportanceProposal p = importance_proposal(lambda);
  const Eigen::MatrixXd expected = theorem_sigma(lambda);
  EXPECT_TRUE(p.sigma.isApprox(expected, 1e-13)) << p.sigma << "\nvs\n" << expected;
  EXPECT_TRUE((p.sqrt_sigma * p.sqrt_sigma).isApprox(expected, 1e-13));
  EXPECT_TRUE((p.inverse * expected).isApprox(Eigen::MatrixXd::Identity(4, 4), 1e-13));
  EXPECT_NEAR(p.log_det, std::log(expected.determinant()), 1e-12);
}

const Eigen::Vector4d kSpread(0.3, 0.1, 0.03, 0.003);  // anisotropic, 100x spread, all below 1/2

}  // namespace

TEST(ImportanceSampling, SigmaStarIsTheoremThreePointTwoOnADiagonalLambda) {
  const Eigen::MatrixXd lambda = kSpread.asDiagonal();
  expect_proposal_matches_theorem(lambda);
  const ImportanceProposal p = importance_proposal(lambda);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(p.sigma(i, i), (1 + 2 * kSpread(i)) / (1 - 2 * kSpread(i)), 1e-14);
}

TEST(ImportanceSampling, SigmaStarIsTheoremThreePointTwoOnARotatedLambda) {
  const Eigen::MatrixXd r = rotation();
  const Eigen::MatrixXd lambda = r * kSpread.asDiagonal() * r.transpose();
  ASSERT_GT((lambda - Eigen::MatrixXd(lambda.diagonal().asDiagonal())).norm(), 0.05);  // really not diagonal
  expect_proposal_matches_theorem(lambda);
}

TEST(ImportanceSampling, LogWeightsAreLogPIOverPsi) {
  const Eigen::MatrixXd r = rotation();
  const ImportanceProposal p = importance_proposal(r * kSpread.asDiagonal() * r.transpose());
  Eigen::MatrixXd omega(3, 4);
  omega << 0.5, -1.0, 2.0, 0.1, 0.0, 0.0, 0.0, 0.0, -1.5, 0.3, 0.7, 1.2;
  const Eigen::VectorXd got = importance_log_weights(p, omega);
  const double log_2pi = std::log(2 * M_PI);
  const Eigen::MatrixXd sigma_inverse = p.sigma.inverse();
  for (int i = 0; i < omega.rows(); ++i) {
    const Eigen::VectorXd w = omega.row(i).transpose();
    const double log_p_identity = -0.5 * w.squaredNorm() - 2 * log_2pi;
    const double log_psi = -0.5 * w.dot(sigma_inverse * w) - 0.5 * std::log(p.sigma.determinant()) - 2 * log_2pi;
    EXPECT_NEAR(got(i), log_p_identity - log_psi, 1e-12) << i;
  }
}

TEST(ImportanceSampling, SigmaStarThatIsNotACovarianceIsOneLineNamingTheOptionsThatWork) {
  Eigen::Vector4d eig = kSpread;
  eig(1) = 0.5;  // 2 Lambda has eigenvalue 1
  try {
    importance_proposal(Eigen::MatrixXd(eig.asDiagonal()));
    ADD_FAILURE() << "expected InputError";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("features.draw importance: ", 0), 0u) << what;
    for (const char* needle : {"0.5 >= 1/2", "features.draw orthogonal", "features.kind dark"})
      EXPECT_NE(what.find(needle), std::string::npos) << needle << " in " << what;
    EXPECT_EQ(what.find('\n'), std::string::npos);
  }
}

TEST(ImportanceSampling, FavorWithImportanceNeedsAProposalAndOnlyFavorTakesIt) {
  FeatureOptions o;
  o.kind = FeatureKind::favor;
  o.draw = FrequencyDraw::importance;
  EXPECT_THROW(FeatureMap(o, 4), InputError);
  o.kind = FeatureKind::trig;
  EXPECT_THROW(FeatureMap(o, 4), InputError);
}

TEST(ImportanceSampling, WeightedFeaturesAreUnbiasedForTheSoftmaxKernel) {
  const int d = 4, n = 4000;
  const Eigen::MatrixXd r = rotation();
  const ImportanceProposal p = importance_proposal(r * kSpread.asDiagonal() * r.transpose());
  Eigen::MatrixXd xy(2, d);
  xy << 0.5, -0.3, 0.8, 0.1, 0.2, 0.6, 0.4, -0.5;
  const double exact = std::exp(xy.row(0).dot(xy.row(1)) / 2.0);  // sqrt(d) = 2
  for (const bool antithetic : {false, true}) {
    FeatureOptions o;
    o.kind = FeatureKind::favor;
    o.draw = FrequencyDraw::importance;
    o.m = 4;
    o.antithetic = antithetic;
    double s1 = 0, s2 = 0;
    for (int i = 0; i < n; ++i) {
      o.seed = 1 + static_cast<std::uint64_t>(i);
      const FeatureMap map(o, d, nullptr, &p);
      EXPECT_LE(map.log_importance_weights().maxCoeff(), 0.5 * p.log_det + 1e-12);
      const Eigen::MatrixXd phi = map.apply_unshifted(xy);
      const double e = phi.row(0).dot(phi.row(1));
      s1 += e;
      s2 += e * e;
    }
    const double mean = s1 / n, sd = std::sqrt((s2 - n * mean * mean) / (n - 1));
    ASSERT_GT(sd, 0);
    EXPECT_NEAR(mean, exact, 5 * sd / std::sqrt(n)) << (antithetic ? "antithetic" : "") << " sd " << sd;
  }
}

TEST(ImportanceSampling, FrequenciesAreSigmaStarRootTimesOrthogonalDraws) {
  const ImportanceProposal p = importance_proposal(Eigen::MatrixXd(kSpread.asDiagonal()));
  FeatureOptions o;
  o.kind = FeatureKind::favor;
  o.draw = FrequencyDraw::importance;
  o.m = 6;
  o.seed = 5;
  const FeatureMap map(o, 4, nullptr, &p);
  const Eigen::MatrixXd g = draw_frequencies(6, 4, FrequencyDraw::orthogonal, false, 5);
  EXPECT_TRUE(map.frequencies().isApprox(g * p.sqrt_sigma, 1e-15));
  EXPECT_TRUE(map.log_importance_weights().isApprox(importance_log_weights(p, map.frequencies()), 1e-15));
}
