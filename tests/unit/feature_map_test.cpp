// Feature maps: option checks, the deterministic maps against their formulas, unbiasedness of the random
// maps, stabilisers that leave attention weights unchanged, and the variance gain of orthogonal frequencies.
//
// Statistical tolerances. An unbiasedness check averages R = 2000 independent estimates (one seed each)
// and accepts |mean - exact| <= 5 s / sqrt(R), s the sample standard deviation: under the normal
// approximation of the mean this fails with probability 5.7e-7. The estimates are lognormal-like with
// small spread at the inputs used (|x|, |y| <= 1.2 before the d^-1/4 scaling), so the approximation is good.
#include "graphrf/attention/feature_map.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "graphrf/core/error.hpp"

using namespace graphrf;

namespace {

using Role = FeatureMap::Role;

template <class F>
void expect_input_error(F&& f, const std::string& option) {
  try {
    f();
    ADD_FAILURE() << "expected InputError naming " << option;
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(option + ":", 0), 0u) << e.what();
  }
}

// Row-normalised attention weights A_ij = phi(q_i)^T phi(k_j) / sum_j phi(q_i)^T phi(k_j).
Eigen::MatrixXd attention_weights(const Eigen::MatrixXd& phi_q, const Eigen::MatrixXd& phi_k) {
  Eigen::MatrixXd s = phi_q * phi_k.transpose();
  const Eigen::VectorXd den = s.rowwise().sum();
  return den.cwiseInverse().asDiagonal() * s;
}

struct Estimates {
  double mean = 0, sd = 0;
  int n = 0;
};

// phi(x)^T phi(y) of the unshifted estimator over seeds 1 .. n.
Estimates estimate(FeatureOptions o, int d, const Eigen::VectorXd& x, const Eigen::VectorXd& y, int n,
                   const Eigen::MatrixXd* dark_m = nullptr) {
  Eigen::MatrixXd xy(2, d);
  xy.row(0) = x.transpose();
  xy.row(1) = y.transpose();
  double s1 = 0, s2 = 0;
  for (int r = 0; r < n; ++r) {
    o.seed = 1 + static_cast<std::uint64_t>(r);
    const Eigen::MatrixXd phi = FeatureMap(o, d, dark_m).apply_unshifted(xy);
    const double e = phi.row(0).dot(phi.row(1));
    s1 += e;
    s2 += e * e;
  }
  Estimates out;
  out.n = n;
  out.mean = s1 / n;
  out.sd = std::sqrt((s2 - n * out.mean * out.mean) / (n - 1));
  return out;
}

const Eigen::Vector4d kX(0.5, -0.3, 0.8, 0.1);
const Eigen::Vector4d kY(0.2, 0.6, 0.4, -0.5);

void expect_unbiased(const FeatureOptions& o, double exact, const Eigen::MatrixXd* dark_m = nullptr) {
  const Estimates e = estimate(o, 4, kX, kY, 2000, dark_m);
  ASSERT_GT(e.sd, 0);
  EXPECT_NEAR(e.mean, exact, 5 * e.sd / std::sqrt(e.n))
      << feature_kind_name(o.kind) << " " << frequency_draw_name(o.draw) << (o.antithetic ? " antithetic" : "")
      << " sd " << e.sd;
}

// exp(x^T y / sqrt(d)), the softmax kernel the random maps estimate.
double softmax_kernel(const Eigen::VectorXd& x, const Eigen::VectorXd& y) {
  return std::exp(x.dot(y) / std::sqrt(static_cast<double>(x.size())));
}

Eigen::MatrixXd test_matrix(int rows, int cols, double scale, double phase) {
  Eigen::MatrixXd x(rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) x(i, j) = scale * std::sin(phase + 1.7 * i + 0.9 * j + 0.3 * i * j);
  return x;
}

}  // namespace

TEST(FeatureMaps, ParsesKindNamesAndRejectsUnknownOnesNamingTheField) {
  for (auto k : {FeatureKind::relu, FeatureKind::elu1, FeatureKind::favor, FeatureKind::trig, FeatureKind::dark})
    EXPECT_EQ(parse_feature_kind(feature_kind_name(k)), k);
  expect_input_error([] { parse_feature_kind("softmax"); }, "features.kind");
  EXPECT_TRUE(can_be_negative(FeatureKind::trig));
  for (auto k : {FeatureKind::relu, FeatureKind::elu1, FeatureKind::favor, FeatureKind::dark})
    EXPECT_FALSE(can_be_negative(k));
}

TEST(FeatureMaps, ChecksOptionsNamingTheField) {
  auto make = [](FeatureKind kind, int m, bool antithetic) {
    FeatureOptions o;
    o.kind = kind;
    o.m = m;
    o.antithetic = antithetic;
    return [o] { FeatureMap f(o, 4); };
  };
  expect_input_error(make(FeatureKind::relu, 8, false), "features.m");
  expect_input_error(make(FeatureKind::elu1, 3, false), "features.m");
  expect_input_error(make(FeatureKind::relu, 0, true), "features.antithetic");
  expect_input_error(make(FeatureKind::trig, 8, true), "features.antithetic");
  expect_input_error(make(FeatureKind::trig, 7, false), "features.m");
  expect_input_error(make(FeatureKind::favor, 7, true), "features.m");
  expect_input_error(make(FeatureKind::favor, -1, false), "features.m");
  expect_input_error(make(FeatureKind::favor, kMaxFeatures + 1, false), "features.m");
  FeatureOptions o;
  o.kind = FeatureKind::favor;
  o.stabilizer_epsilon = -1e-6;
  expect_input_error([&] { FeatureMap f(o, 4); }, "features.stabilizer_epsilon");
  o.kind = FeatureKind::relu;
  o.relu_epsilon = std::numeric_limits<double>::quiet_NaN();
  expect_input_error([&] { FeatureMap f(o, 4); }, "features.relu_epsilon");

  // Programming errors.
  FeatureOptions dark;
  dark.kind = FeatureKind::dark;
  EXPECT_THROW(FeatureMap(dark, 4), std::invalid_argument);  // no M
  const Eigen::MatrixXd wrong = Eigen::MatrixXd::Identity(3, 3);
  EXPECT_THROW(FeatureMap(dark, 4, &wrong), std::invalid_argument);
  const Eigen::MatrixXd m = Eigen::MatrixXd::Identity(4, 4);
  EXPECT_THROW(FeatureMap(FeatureOptions{}, 4, &m), std::invalid_argument);  // M given to relu
  EXPECT_THROW(FeatureMap(FeatureOptions{}, 0), std::invalid_argument);
  EXPECT_THROW(FeatureMap(FeatureOptions{}, 4).apply(Eigen::MatrixXd::Zero(2, 3), Role::query), std::invalid_argument);
}

TEST(FeatureMaps, FeatureCountsAndFrequencyShapes) {
  auto dims = [](FeatureKind kind, int m, bool antithetic, int d, const Eigen::MatrixXd* dm = nullptr) {
    FeatureOptions o;
    o.kind = kind;
    o.m = m;
    o.antithetic = antithetic;
    FeatureMap f(o, d, dm);
    EXPECT_EQ(f.input_dim(), d);
    EXPECT_EQ(f.options().m, f.output_dim());
    return std::pair<int, Eigen::Index>(f.output_dim(), f.frequencies().rows());
  };
  EXPECT_EQ(dims(FeatureKind::relu, 0, false, 5), std::make_pair(5, Eigen::Index{0}));
  EXPECT_EQ(dims(FeatureKind::elu1, 5, false, 5), std::make_pair(5, Eigen::Index{0}));
  EXPECT_EQ(dims(FeatureKind::favor, 0, false, 5), std::make_pair(5, Eigen::Index{5}));
  EXPECT_EQ(dims(FeatureKind::favor, 0, true, 5), std::make_pair(6, Eigen::Index{6}));  // rounded up to even
  EXPECT_EQ(dims(FeatureKind::favor, 13, false, 5), std::make_pair(13, Eigen::Index{13}));
  EXPECT_EQ(dims(FeatureKind::trig, 0, false, 5), std::make_pair(6, Eigen::Index{3}));  // 3 frequencies, cos + sin
  EXPECT_EQ(dims(FeatureKind::trig, 12, false, 5), std::make_pair(12, Eigen::Index{6}));
  const Eigen::MatrixXd m = test_matrix(3, 5, 1.0, 0.2);
  EXPECT_EQ(dims(FeatureKind::dark, 10, true, 5, &m), std::make_pair(10, Eigen::Index{10}));
}

TEST(FeatureMaps, ReluAndElu1MatchTheirFormulas) {
  const int d = 4;
  const Eigen::MatrixXd x = test_matrix(6, d, 2.0, 0.1);
  FeatureOptions o;
  o.kind = FeatureKind::relu;
  const FeatureMap relu(o, d);
  o.relu_scale = true;
  const FeatureMap scaled(o, d);
  o.kind = FeatureKind::elu1;
  const FeatureMap elu(o, d);
  for (int i = 0; i < x.rows(); ++i)
    for (int j = 0; j < d; ++j) {
      const double v = x(i, j);
      EXPECT_EQ(relu.apply(x, Role::query)(i, j), std::max(v, 0.0) + 1e-8);
      EXPECT_EQ(relu.apply(x, Role::key)(i, j), std::max(v, 0.0) + 1e-8);
      EXPECT_EQ(scaled.apply(x, Role::query)(i, j), std::max(v / 2.0, 0.0) + 1e-8);  // 1/sqrt(4)
      EXPECT_EQ(scaled.apply(x, Role::key)(i, j), std::max(v, 0.0) + 1e-8);         // queries only
      EXPECT_DOUBLE_EQ(elu.apply(x, Role::query)(i, j), v > 0 ? v + 1 : std::exp(v));
      EXPECT_GT(elu.apply(x, Role::key)(i, j), 0.0);
    }
  EXPECT_EQ(relu.key_max_logit(x), 0.0);
  EXPECT_EQ(relu.apply(Eigen::MatrixXd(0, d), Role::query).rows(), 0);
}

TEST(FeatureMaps, FavorFeaturesFollowTheirDefinition) {
  const int d = 4, m = 6;
  FeatureOptions o;
  o.kind = FeatureKind::favor;
  o.m = m;
  o.draw = FrequencyDraw::orthogonal_pnc;
  o.seed = 3;
  const FeatureMap f(o, d);
  EXPECT_EQ(f.frequencies(), draw_frequencies(m, d, FrequencyDraw::orthogonal_pnc, false, 3));
  const Eigen::MatrixXd x = test_matrix(3, d, 1.0, 0.4);
  const Eigen::MatrixXd phi = f.apply_unshifted(x);
  double max_logit = -1e300;
  for (int i = 0; i < x.rows(); ++i) {
    const Eigen::VectorXd xs = x.row(i).transpose() / std::sqrt(2.0);  // d^-1/4 = 1/sqrt(2)
    for (int k = 0; k < m; ++k) {
      const double logit = f.frequencies().row(k).dot(xs) - 0.5 * xs.squaredNorm();
      max_logit = std::max(max_logit, logit);
      EXPECT_NEAR(phi(i, k), std::exp(logit) / std::sqrt(m), 1e-14);
    }
  }
  EXPECT_NEAR(f.key_max_logit(x), max_logit, 1e-14);
  EXPECT_EQ(f.key_max_logit(Eigen::MatrixXd(0, d)), -std::numeric_limits<double>::infinity());
  // Stabilised queries: the largest feature of each row is exactly m^-1/2 (1 + eps); keys with the
  // global shift are all <= m^-1/2 (1 + eps).
  const double top = (1 + o.stabilizer_epsilon) / std::sqrt(m);
  const Eigen::MatrixXd q = f.apply(x, Role::query);
  for (int i = 0; i < q.rows(); ++i) EXPECT_DOUBLE_EQ(q.row(i).maxCoeff(), top);
  EXPECT_LE(f.apply(x, Role::key, f.key_max_logit(x)).maxCoeff(), top * (1 + 1e-15));
}

TEST(FeatureMaps, DarkWithIdentityMIsFavorAndUsesMTransposeG) {
  const int d = 4, m = 8;
  FeatureOptions o;
  o.kind = FeatureKind::favor;
  o.m = m;
  o.antithetic = true;
  const Eigen::MatrixXd x = test_matrix(5, d, 1.0, 0.7);
  const Eigen::MatrixXd identity = Eigen::MatrixXd::Identity(d, d);
  const FeatureMap favor(o, d);
  o.kind = FeatureKind::dark;
  const FeatureMap dark_identity(o, d, &identity);
  EXPECT_TRUE(dark_identity.apply_unshifted(x).isApprox(favor.apply_unshifted(x), 1e-14));
  EXPECT_TRUE(dark_identity.apply(x, Role::query).isApprox(favor.apply(x, Role::query), 1e-14));

  const Eigen::MatrixXd mr = test_matrix(3, d, 0.8, 0.3);  // r = 3 < d
  const FeatureMap dark(o, d, &mr);
  EXPECT_EQ(dark.frequencies(), (draw_frequencies(m, 3, o.draw, true, o.seed) * mr).eval());
  // phi(x) = PRF_{R^r}(M x): logits w~^T x - |M x|^2 / 2.
  const Eigen::MatrixXd xs = x / std::sqrt(2.0);
  Eigen::MatrixXd l = xs * dark.frequencies().transpose();
  l.colwise() -= 0.5 * (xs * mr.transpose()).rowwise().squaredNorm();
  EXPECT_TRUE(dark.apply_unshifted(x).isApprox((l.array().exp() / std::sqrt(m)).matrix(), 1e-14));
}

TEST(FeatureMaps, FavorIsUnbiasedForTheSoftmaxKernelUnderEveryDraw) {
  FeatureOptions o;
  o.kind = FeatureKind::favor;
  o.m = 16;
  for (auto draw : {FrequencyDraw::iid, FrequencyDraw::orthogonal, FrequencyDraw::orthogonal_pnc}) {
    o.draw = draw;
    o.antithetic = false;
    expect_unbiased(o, softmax_kernel(kX, kY));
  }
  o.draw = FrequencyDraw::orthogonal_pnc;
  o.antithetic = true;
  expect_unbiased(o, softmax_kernel(kX, kY));
}

TEST(FeatureMaps, TrigIsUnbiasedForTheSoftmaxKernel) {
  FeatureOptions o;
  o.kind = FeatureKind::trig;
  o.m = 16;
  for (auto draw : {FrequencyDraw::iid, FrequencyDraw::orthogonal_pnc}) {
    o.draw = draw;
    expect_unbiased(o, softmax_kernel(kX, kY));
  }
}

TEST(FeatureMaps, DarkIsUnbiasedForTheSigmaKernel) {
  // M is 3 x 4 (r < d, odd r: PNC leaves one independent norm per block); Sigma = M^T M.
  Eigen::MatrixXd m(3, 4);
  m << 0.9, 0.2, -0.3, 0.1,  //
      0.0, 0.7, 0.4, -0.2,   //
      0.3, -0.1, 0.5, 0.8;
  const double exact = std::exp(kX.dot(m.transpose() * m * kY) / 2.0);  // / sqrt(d)
  FeatureOptions o;
  o.kind = FeatureKind::dark;
  o.m = 16;
  o.draw = FrequencyDraw::iid;
  expect_unbiased(o, exact, &m);
  o.draw = FrequencyDraw::orthogonal_pnc;
  o.antithetic = true;
  expect_unbiased(o, exact, &m);
}

TEST(FeatureMaps, StabilisedAttentionWeightsEqualUnstabilisedOnes) {
  // With eps = 0 the query and key shifts are positive factors that cancel in the row normalisation.
  const int d = 4;
  const Eigen::MatrixXd q = test_matrix(5, d, 1.5, 0.0);
  const Eigen::MatrixXd k = test_matrix(7, d, 1.5, 2.0);
  const Eigen::MatrixXd mr = test_matrix(4, d, 0.6, 1.1);
  for (auto kind : {FeatureKind::favor, FeatureKind::dark, FeatureKind::trig}) {
    FeatureOptions o;
    o.kind = kind;
    o.m = 16;
    o.stabilizer_epsilon = 0.0;
    const FeatureMap f(o, d, kind == FeatureKind::dark ? &mr : nullptr);
    const Eigen::MatrixXd exact = attention_weights(f.apply_unshifted(q), f.apply_unshifted(k));
    const Eigen::MatrixXd stable = attention_weights(f.apply(q, Role::query), f.apply(k, Role::key, f.key_max_logit(k)));
    EXPECT_LT((exact - stable).cwiseAbs().maxCoeff(), 1e-10 * std::max(1.0, exact.cwiseAbs().maxCoeff()))
        << feature_kind_name(kind);
  }
}

TEST(FeatureMaps, StabilisersKeepLargeInputsFinite) {
  // |x| ~ 60 after scaling: unshifted favor features underflow to 0 (logits ~ -1800) and trig's
  // h(x) = exp(|x|^2/2) overflows. The stabilised weights stay finite and match a log-space reference.
  const int d = 4;
  const Eigen::MatrixXd q = test_matrix(3, d, 60.0, 0.5);
  Eigen::MatrixXd k = test_matrix(4, d, 1.0, 1.5);
  k.rowwise() += q.row(0);  // keys near one query, so their logits are within ~100 of each other
  FeatureOptions o;
  o.kind = FeatureKind::favor;
  o.m = 8;
  o.stabilizer_epsilon = 0.0;
  const FeatureMap f(o, d);
  // The failure the stabiliser exists for: every unshifted score underflows and the weights are 0/0.
  EXPECT_LT(f.apply_unshifted(q).maxCoeff(), 1e-300);
  EXPECT_FALSE(attention_weights(f.apply_unshifted(q), f.apply_unshifted(k)).allFinite());
  const Eigen::MatrixXd w = attention_weights(f.apply(q, Role::query), f.apply(k, Role::key, f.key_max_logit(k)));
  ASSERT_TRUE(w.allFinite());
  // Reference: a_ij = log sum_f exp(lq_if + lk_jf), weights = softmax_j(a_ij).
  const Eigen::MatrixXd w_t = f.frequencies();
  auto logits = [&](const Eigen::MatrixXd& x) {
    const Eigen::MatrixXd xs = x / std::sqrt(2.0);
    Eigen::MatrixXd l = xs * w_t.transpose();
    l.colwise() -= 0.5 * xs.rowwise().squaredNorm();
    return l;
  };
  const Eigen::MatrixXd lq = logits(q), lk = logits(k);
  for (int i = 0; i < q.rows(); ++i) {
    Eigen::VectorXd a(k.rows());
    for (int j = 0; j < k.rows(); ++j) {
      const Eigen::VectorXd s = (lq.row(i) + lk.row(j)).transpose();
      a(j) = s.maxCoeff() + std::log((s.array() - s.maxCoeff()).exp().sum());
    }
    const Eigen::VectorXd e = (a.array() - a.maxCoeff()).exp();
    for (int j = 0; j < k.rows(); ++j) EXPECT_NEAR(w(i, j), e(j) / e.sum(), 1e-10) << i << " " << j;
  }

  o.kind = FeatureKind::trig;
  const FeatureMap t(o, d);
  Eigen::MatrixXd big_k = test_matrix(4, d, 60.0, 1.5);
  EXPECT_FALSE(t.apply_unshifted(big_k).allFinite());
  EXPECT_TRUE(t.apply(q, Role::query).allFinite());
  EXPECT_TRUE(t.apply(big_k, Role::key, t.key_max_logit(big_k)).allFinite());
  EXPECT_NEAR(t.key_max_logit(big_k), 0.5 * (big_k / std::sqrt(2.0)).rowwise().squaredNorm().maxCoeff(), 1e-9);
}

TEST(FeatureMaps, OrthogonalFrequenciesLowerTrigVariance) {
  // d = 8, m = 16 (8 frequencies: one orthogonal block). x and y as below: B = h(x) h(y) = 1.508,
  // |x - y| = 1.269 (after scaling), exact = 0.674. The estimate lies in [-B, B], so each squared error
  // lies in [0, c], c = (B + exact)^2 = 4.76. A pilot run (20000 seeds) gave MSE 0.0927 (iid; analytic
  // B^2 (1 - exp(-|x-y|^2))^2 / m = 0.0909) and 0.0246 (orthogonal): D = 0.068. The test asserts
  // mse_iid > mse_orth. By Bernstein's inequality on the R paired differences (range [-c, c], variance
  // <= c (mse_iid + mse_orth) = 0.56 since a [0, c] variable has Var <= c E), it fails with probability
  // <= exp(-R D^2 / (2 * 0.56 + 2 c D / 3)) = 1e-9 at R = 6000 (e^-110 with the pilot variances).
  const int d = 8, n = 6000;
  Eigen::VectorXd x(d), y(d);
  for (int c = 0; c < d; ++c) {
    x(c) = 0.5 * std::sin(1.0 + c);
    y(c) = -0.5 * std::sin(1.0 + c) + 0.15 * std::cos(0.5 + 2 * c);
  }
  const double exact = softmax_kernel(x, y);
  FeatureOptions o;
  o.kind = FeatureKind::trig;
  o.m = 16;
  o.draw = FrequencyDraw::iid;
  const Estimates iid = estimate(o, d, x, y, n);
  o.draw = FrequencyDraw::orthogonal;
  const Estimates orth = estimate(o, d, x, y, n);
  // MSE about the exact value = variance + (mean - exact)^2.
  auto mse = [&](const Estimates& e) {
    return e.sd * e.sd * (e.n - 1.0) / e.n + (e.mean - exact) * (e.mean - exact);
  };
  EXPECT_GT(mse(iid), mse(orth));
  // Sanity: the iid MSE against its closed form. The squared errors have sd ~0.13 (pilot), so the mean of
  // 6000 has sd 1.7e-3; 6 sd (1e-2) fails with probability ~2e-9 (normal approximation).
  const double s = std::pow(d, -0.25);
  const double b2 = std::exp(s * s * (x.squaredNorm() + y.squaredNorm()));
  const double analytic = b2 * std::pow(1 - std::exp(-s * s * (x - y).squaredNorm()), 2) / o.m;
  EXPECT_NEAR(mse(iid), analytic, 1e-2);
}

TEST(FeatureMaps, OrthogonalFrequenciesLowerFavorVariance) {
  // d = 8, m = 8 (one block), x = y = 0.3 sin(1 + c): |x + y| = 0.71 after scaling. Pilot (20000 seeds):
  // MSE 0.134 (iid; analytic exp(2 x.y)(exp(|x+y|^2) - 1) / m = 0.130) and 0.112 (orthogonal), D = 0.022,
  // squared-error sd 0.32 and 0.19. With R = 40000 each, D-hat has sd 0.0019, so D-hat <= 0 is 11.8 sd
  // away. PRF estimates are unbounded (lognormal-like), so no Hoeffding/Bernstein bound applies; under the
  // normal approximation the failure probability is ~1e-32, and the margin (11.8 sd against the 4.9 sd
  // needed for 1e-6) leaves room for the skewness the approximation ignores.
  const int d = 8, n = 40000;
  Eigen::VectorXd x(d);
  for (int c = 0; c < d; ++c) x(c) = 0.3 * std::sin(1.0 + c);
  const double exact = softmax_kernel(x, x);
  FeatureOptions o;
  o.kind = FeatureKind::favor;
  o.m = 8;
  o.draw = FrequencyDraw::iid;
  const Estimates iid = estimate(o, d, x, x, n);
  o.draw = FrequencyDraw::orthogonal;
  const Estimates orth = estimate(o, d, x, x, n);
  auto mse = [&](const Estimates& e) {
    return e.sd * e.sd * (e.n - 1.0) / e.n + (e.mean - exact) * (e.mean - exact);
  };
  EXPECT_GT(mse(iid), mse(orth));
}
