// Dense references: the closed-form kernel matrices against the truncated power series, against matrix
// functions computed independently here (scaling-and-squaring Taylor exp, LU inverses, matrix powers, a
// Taylor cosine, an eigendecomposition of L rather than W), and Phi Phi^T = M for Phi = sum_k f_k W^k.
#include "graphrf/grf/dense_reference.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <cmath>
#include <limits>
#include <numbers>
#include <random>
#include <stdexcept>
#include <vector>

#include "graphrf/core/error.hpp"
#include "graphrf/grf/kernel.hpp"
#include "kernel_test_support.hpp"

using namespace graphrf;
using graphrf::testing::named;

namespace {

// Symmetric weighted graph: G(n, p) edges plus a ring (no isolated nodes), weights in [0.5, 2).
Eigen::MatrixXd random_weighted_graph(int n, double p, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> coin(0.0, 1.0), weight(0.5, 2.0);
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      if (coin(rng) < p || j == i + 1) A(i, j) = A(j, i) = weight(rng);
  return A;
}

// exp(X) by scaling and squaring with a 30-term Taylor polynomial (||X / 2^s||_1 <= 1/2).
Eigen::MatrixXd expm_taylor(const Eigen::MatrixXd& X) {
  const double norm1 = X.cwiseAbs().colwise().sum().maxCoeff();
  const int s = norm1 > 0.5 ? static_cast<int>(std::ceil(std::log2(norm1 / 0.5))) : 0;
  const Eigen::MatrixXd Y = X / std::ldexp(1.0, s);
  const Eigen::Index n = X.rows();
  Eigen::MatrixXd term = Eigen::MatrixXd::Identity(n, n), E = term;
  for (int k = 1; k <= 30; ++k) {
    term = term * Y / k;
    E += term;
  }
  for (int i = 0; i < s; ++i) E = E * E;
  return E;
}

// cos(X) = sum_j (-1)^j X^{2j} / (2j)! (no scaling: used with ||X|| <= 2).
Eigen::MatrixXd cosm_taylor(const Eigen::MatrixXd& X) {
  const Eigen::Index n = X.rows();
  const Eigen::MatrixXd X2 = X * X;
  Eigen::MatrixXd term = Eigen::MatrixXd::Identity(n, n), C = term;
  for (int j = 1; j <= 30; ++j) {
    term = -term * X2 / ((2.0 * j - 1) * (2.0 * j));
    C += term;
  }
  return C;
}

Eigen::MatrixXd matrix_power(const Eigen::MatrixXd& X, int p) {
  Eigen::MatrixXd R = Eigen::MatrixXd::Identity(X.rows(), X.cols());
  for (int i = 0; i < p; ++i) R = R * X;
  return R;
}

// h(L) via an eigendecomposition of L itself.
template <class H>
Eigen::MatrixXd function_of_laplacian(const Eigen::MatrixXd& L, H h) {
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(L);
  Eigen::VectorXd d = es.eigenvalues().unaryExpr(h);
  return es.eigenvectors() * d.asDiagonal() * es.eigenvectors().transpose();
}

struct Fixture {
  Eigen::MatrixXd A = random_weighted_graph(30, 0.2, 7u);
  Eigen::MatrixXd W = normalized_adjacency(A);
  Eigen::MatrixXd I = Eigen::MatrixXd::Identity(W.rows(), W.cols());
  Eigen::MatrixXd L = I - W;
};

}  // namespace

TEST(DenseReference, NormalizedAdjacencyEntriesAndSpectrum) {
  Eigen::MatrixXd A = random_weighted_graph(12, 0.3, 3u);
  // Make node 11 isolated.
  A.row(11).setZero();
  A.col(11).setZero();
  const Eigen::MatrixXd W = normalized_adjacency(A);
  for (int i = 0; i < 12; ++i) {
    const double di = A.row(i).sum();
    for (int j = 0; j < 12; ++j) {
      const double dj = A.row(j).sum();
      const double want = (di > 0 && dj > 0) ? A(i, j) / std::sqrt(di * dj) : 0.0;
      EXPECT_NEAR(W(i, j), want, 1e-15);
    }
  }
  EXPECT_EQ(W.row(11).norm(), 0.0);
  EXPECT_EQ(W.col(11).norm(), 0.0);
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(W);
  EXPECT_NEAR(es.eigenvalues().maxCoeff(), 1.0, 1e-13);
  EXPECT_GE(es.eigenvalues().minCoeff(), -1.0 - 1e-13);
  EXPECT_THROW(normalized_adjacency(Eigen::MatrixXd::Zero(2, 3)), std::invalid_argument);
}

TEST(DenseReference, SeriesOfSixtyTermsEqualsTheExactKernelForEveryNamedKernel) {
  Fixture g;
  const std::vector<KernelSpec> specs = {named(KernelKind::diffusion, 1.3),
                                         named(KernelKind::exp_adjacency, 2.0),
                                         named(KernelKind::regularized_laplacian, 0.5, 1.0),
                                         named(KernelKind::regularized_laplacian, 0.5, 2.5),
                                         named(KernelKind::p_step, 1.0, 2.0, 2.0),
                                         named(KernelKind::p_step, 1.0, 3.0, 2.5),
                                         named(KernelKind::cosine, std::numbers::pi / 4)};
  for (const auto& spec : specs) {
    validate(spec, 1.0);
    const Eigen::MatrixXd exact = kernel_matrix_exact(spec, g.W);
    const Eigen::MatrixXd series = kernel_matrix_series(kernel_alpha(spec, 60), g.W);
    EXPECT_LT(relative_frobenius_error(series, exact), 1e-12) << describe(spec);
  }
}

TEST(DenseReference, ExactKernelsEqualIndependentMatrixFunctions) {
  Fixture g;
  auto expect_close = [](const Eigen::MatrixXd& got, const Eigen::MatrixXd& want, const char* what) {
    EXPECT_LT(relative_frobenius_error(got, want), 1e-12) << what;
  };
  expect_close(kernel_matrix_exact(named(KernelKind::diffusion, 1.3), g.W), expm_taylor(-1.3 * g.L), "diffusion");
  expect_close(kernel_matrix_exact(named(KernelKind::diffusion, 1.3), g.W), std::exp(-1.3) * expm_taylor(1.3 * g.W),
               "diffusion = e^-beta exp(beta W)");
  expect_close(kernel_matrix_exact(named(KernelKind::exp_adjacency, 2.0), g.W), expm_taylor(2.0 * g.W), "exp");

  const double beta = 0.5;
  const Eigen::MatrixXd inv1 = (g.I + beta * g.L).fullPivLu().inverse();
  expect_close(kernel_matrix_exact(named(KernelKind::regularized_laplacian, beta, 1.0), g.W), inv1, "reg d=1");
  expect_close(kernel_matrix_exact(named(KernelKind::regularized_laplacian, beta, 2.0), g.W), inv1 * inv1, "reg d=2");
  expect_close(kernel_matrix_exact(named(KernelKind::regularized_laplacian, beta, 2.5), g.W),
               function_of_laplacian(g.L, [&](double l) { return std::pow(1 + beta * l, -2.5); }), "reg d=2.5");

  for (int p : {1, 2, 3})
    for (double a : {2.0, 3.5})
      expect_close(kernel_matrix_exact(named(KernelKind::p_step, 1.0, p, a), g.W), matrix_power(a * g.I - g.L, p),
                   "p-step");

  for (double b : {0.5, std::numbers::pi / 4}) {
    expect_close(kernel_matrix_exact(named(KernelKind::cosine, b), g.W), cosm_taylor(b * g.L), "cosine");
    expect_close(kernel_matrix_exact(named(KernelKind::cosine, b), g.W),
                 function_of_laplacian(g.L, [&](double l) { return std::cos(b * l); }), "cosine via eig(L)");
  }
}

TEST(DenseReference, RawScaledAdjacencyWithinTheRadiusOfConvergence) {
  // W = cA with c rho(A) = 0.9 and a regularized Laplacian with beta = 4 (c_reg = 0.8): c_reg rho = 0.72 < 1.
  Fixture g;
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(g.A);
  const double rho_a = es.eigenvalues().cwiseAbs().maxCoeff();
  const Eigen::MatrixXd W = (0.9 / rho_a) * g.A;
  const auto spec = named(KernelKind::regularized_laplacian, 4.0, 1.0);
  validate(spec, 0.9);
  EXPECT_THROW(validate(spec, 1.3), InputError);  // 0.8 * 1.3 >= 1
  const Eigen::MatrixXd I = Eigen::MatrixXd::Identity(W.rows(), W.cols());
  const Eigen::MatrixXd want = (I + 4.0 * (I - W)).fullPivLu().inverse();
  EXPECT_LT(relative_frobenius_error(kernel_matrix_exact(spec, W), want), 1e-12);
  // 0.72^k: 200 terms leave ~1e-28.
  EXPECT_LT(relative_frobenius_error(kernel_matrix_series(kernel_alpha(spec, 200), W), want), 1e-12);
}

TEST(DenseReference, PhiIsSymmetricAndPhiPhiTransposeIsTheKernel) {
  // Parameters keep rho/R_f <= 1/2 so that 60 terms of f converge to 1e-12 (at rho = R_f, e.g. cosine with
  // beta = pi/4, the f series converges only polynomially; that case is checked through alpha above).
  Fixture g;
  const std::vector<KernelSpec> specs = {named(KernelKind::diffusion, 1.3),
                                         named(KernelKind::exp_adjacency, 2.0),
                                         named(KernelKind::regularized_laplacian, 0.5, 1.0),
                                         named(KernelKind::regularized_laplacian, 0.5, 3.0),
                                         named(KernelKind::p_step, 1.0, 2.0, 2.0),
                                         named(KernelKind::p_step, 1.0, 3.0, 3.0),
                                         named(KernelKind::cosine, 0.5)};
  for (const auto& spec : specs) {
    ASSERT_GE(f_series_radius(spec), 2.0) << describe(spec);
    const Eigen::MatrixXd Phi = kernel_matrix_series(kernel_f(spec, 60), g.W);
    EXPECT_LT(relative_frobenius_error(Phi.transpose(), Phi), 1e-14) << describe(spec);
    const Eigen::MatrixXd M = kernel_matrix_exact(spec, g.W);
    EXPECT_LT(relative_frobenius_error(Phi * Phi.transpose(), M), 1e-12) << describe(spec);
  }
  // User f: Phi Phi^T equals the series of f * f exactly (finite f).
  KernelSpec user;
  user.kind = KernelKind::f;
  user.coefficients = {0.7, -0.3, 0.2, 0.1};
  const Eigen::MatrixXd Phi = kernel_matrix_series(kernel_f(user, 4), g.W);
  EXPECT_LT(relative_frobenius_error(Phi * Phi.transpose(), kernel_matrix_exact(user, g.W)), 1e-13);
  EXPECT_LT(relative_frobenius_error(kernel_matrix_series(kernel_alpha(user, 7), g.W), kernel_matrix_exact(user, g.W)),
            1e-13);
  // Cosine with the documented beta = pi/4 on W/2 (rho = 1/2 = R_f / 2).
  const auto cosine = named(KernelKind::cosine, std::numbers::pi / 4);
  const Eigen::MatrixXd Wh = 0.5 * g.W;
  const Eigen::MatrixXd Phic = kernel_matrix_series(kernel_f(cosine, 60), Wh);
  EXPECT_LT(relative_frobenius_error(Phic * Phic.transpose(), kernel_matrix_exact(cosine, Wh)), 1e-12);
}

TEST(DenseReference, HornerMatchesExplicitPowersAndEdgeCases) {
  Fixture g;
  const std::vector<double> alpha = {0.3, -1.2, 0.5, 2.0};
  const Eigen::MatrixXd want = 0.3 * g.I - 1.2 * g.W + 0.5 * g.W * g.W + 2.0 * g.W * g.W * g.W;
  EXPECT_LT(relative_frobenius_error(kernel_matrix_series(alpha, g.W), want), 1e-14);
  EXPECT_EQ(kernel_matrix_series(std::vector<double>{}, g.W).norm(), 0.0);
  EXPECT_LT(relative_frobenius_error(kernel_matrix_series(std::vector<double>{2.5}, g.W), 2.5 * g.I), 1e-16);
}

TEST(DenseReference, RelativeFrobeniusErrorAndArgumentChecks) {
  const Eigen::MatrixXd X = Eigen::MatrixXd::Identity(4, 4);  // ||X||_F = 2
  Eigen::MatrixXd Y = X;
  Y(0, 1) = 0.5;
  EXPECT_DOUBLE_EQ(relative_frobenius_error(Y, X), 0.25);
  EXPECT_EQ(relative_frobenius_error(Eigen::MatrixXd::Zero(2, 2), Eigen::MatrixXd::Zero(2, 2)), 0.0);
  EXPECT_EQ(relative_frobenius_error(Eigen::MatrixXd::Ones(2, 2), Eigen::MatrixXd::Zero(2, 2)),
            std::numeric_limits<double>::infinity());
  EXPECT_THROW(relative_frobenius_error(Eigen::MatrixXd::Zero(2, 2), Eigen::MatrixXd::Zero(3, 3)),
               std::invalid_argument);
  Eigen::MatrixXd N = Eigen::MatrixXd::Identity(3, 3);
  N(0, 1) = 1.0;
  EXPECT_THROW(kernel_matrix_exact(named(KernelKind::diffusion), N), std::invalid_argument);
  // Outside the domain of the closed form: 1 + beta (1 - lambda) < 0 with a non-integer power.
  const Eigen::MatrixXd W = 3.0 * Eigen::MatrixXd::Identity(2, 2);
  EXPECT_THROW(kernel_matrix_exact(named(KernelKind::regularized_laplacian, 1.0, 1.5), W), Error);
}
