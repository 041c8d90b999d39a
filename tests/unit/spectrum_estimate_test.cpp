// lambda_max by Lanczos, the eigencount estimator and the lambda_K dichotomy, against dense eigenvalues.
//
// Tolerances. With R of Lr columns of i.i.d. N(0, 1/Lr) entries and P = p(L) (Jackson low-pass),
// X = ||P R||_F^2 = sum_i sum_l p(lambda_i)^2 z_il^2 / Lr with z_il i.i.d. N(0, 1): mean mu = tr(P^2), variance
// 2 tr(P^4) / Lr. Laurent and Massart (2000, Lemma 1) with weights w = p(lambda_i)^2 / Lr (each Lr times):
// ||w||_2 = sqrt(tr(P^4) / Lr), ||w||_inf <= 1 / Lr, so
//   P(|X - mu| > dev(t)) <= 2 e^{-t},   dev(t) = 2 sqrt(t tr(P^4) / Lr) + 2 t / Lr.
// mu itself differs from the true count #{lambda_i <= lambda} by the Jackson filter's soft edge; the tests
// compute that bias exactly from the eigenvalues. With t = 20 a check fails for at most 4e-9 of seeds; for
// the dichotomy, whose end point depends on R, a union bound over the <= 2^11 dyadic midpoints it can visit
// in 10 iterations gives <= 2^11 * 2 e^{-20} < 1e-5.
#include "graphrf/spectral/spectrum_estimate.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "graphrf/spectral/chebyshev.hpp"
#include "wavelet_test_graphs.hpp"

using namespace graphrf;
using namespace graphrf::testing;

namespace {
struct CountStats {
  double mu = 0;   // tr(p(L)^2)
  double tr4 = 0;  // tr(p(L)^4)
  int count = 0;   // #{lambda_i <= lambda}
};

CountStats exact_stats(const Eigen::VectorXd& ev, double lambda, int order) {
  const auto c = jackson_chebyshev_coefficients(0.0, lambda, order, 2.0);
  CountStats s;
  for (Eigen::Index i = 0; i < ev.size(); ++i) {
    const double p2 = std::pow(chebyshev_eval(c, 2.0, ev(i)), 2);
    s.mu += p2;
    s.tr4 += p2 * p2;
    s.count += ev(i) <= lambda ? 1 : 0;
  }
  return s;
}

double deviation(const CountStats& s, int lr, double t = 20.0) { return 2.0 * std::sqrt(t * s.tr4 / lr) + 2.0 * t / lr; }

Eigen::VectorXd eigenvalues(const Eigen::MatrixXd& l) { return Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(l).eigenvalues(); }
}  // namespace

TEST(SpectrumEstimate, LambdaMaxIsASlightOverestimate) {
  Communicator self(MPI_COMM_SELF);
  for (const Eigen::MatrixXd& a : {grid_2d(20, 20), ring_of_cliques(10, 20)}) {
    const Eigen::MatrixXd l3 = 3.0 * normalised_laplacian(a);
    const double truth = eigenvalues(l3).maxCoeff();
    const auto op = serial_operator(self, l3);
    const double est = estimate_lambda_max(op, RowBlockReducer(op));
    EXPECT_GE(est, truth);
    EXPECT_LE(est, 1.05 * truth);
  }
}

TEST(SpectrumEstimate, EigencountWithinDerivedToleranceOfTheTrueCount) {
  Communicator self(MPI_COMM_SELF);
  struct Case {
    Eigen::MatrixXd a;
    double lambda;
  };
  const std::vector<Case> cases = {{ring_of_cliques(10, 20), 0.5}, {grid_2d(20, 20), 0.1}, {grid_2d(20, 20), 0.5}};
  for (const auto& [a, lambda] : cases) {
    const Eigen::MatrixXd l = normalised_laplacian(a);
    const auto op = serial_operator(self, l);
    const RowBlockReducer sums(op);
    const auto s = exact_stats(eigenvalues(l), lambda, 50);
    for (int lr : {default_probe_count(op.n_global), 100}) {
      for (std::uint64_t seed : {1u, 2u, 3u}) {
        const double est = eigencount(op, sums, 2.0, lambda, eigencount_probes(op, lr, seed), 50);
        EXPECT_LE(std::abs(est - s.mu), deviation(s, lr)) << lambda << " Lr " << lr;
        EXPECT_LE(std::abs(std::round(est) - s.count), std::abs(s.mu - s.count) + deviation(s, lr) + 0.5)
            << lambda << " Lr " << lr;
      }
    }
  }
  // In the ring's spectral gap the soft-edge bias vanishes and 100 probes pin the count down.
  const Eigen::MatrixXd l = normalised_laplacian(ring_of_cliques(10, 20));
  const auto s = exact_stats(eigenvalues(l), 0.5, 50);
  EXPECT_EQ(s.count, 10);
  EXPECT_NEAR(s.mu, 10.0, 0.01);
  EXPECT_LT(deviation(s, 100), 3.8);
}

TEST(SpectrumEstimate, EigencountMeanAndVarianceMatchTheory) {
  // 200 independent probe blocks: the sample mean is within 5 standard errors of tr(P^2) and the sample
  // variance within [0.6, 1.5] of 2 tr(P^4) / Lr (its relative spread is ~0.1 here).
  Communicator self(MPI_COMM_SELF);
  const Eigen::MatrixXd l = normalised_laplacian(grid_2d(20, 20));
  const auto op = serial_operator(self, l);
  const RowBlockReducer sums(op);
  const auto s = exact_stats(eigenvalues(l), 0.5, 50);
  const int lr = default_probe_count(op.n_global);
  const double var = 2.0 * s.tr4 / lr;
  const int n = 200;
  double sum = 0, sum2 = 0;
  for (int seed = 0; seed < n; ++seed) {
    const double e = eigencount(op, sums, 2.0, 0.5, eigencount_probes(op, lr, 1000 + seed), 50);
    sum += e;
    sum2 += e * e;
  }
  const double mean = sum / n, sample_var = (sum2 / n - mean * mean) * n / (n - 1);
  EXPECT_LE(std::abs(mean - s.mu), 5.0 * std::sqrt(var / n));
  EXPECT_GT(sample_var / var, 0.6);
  EXPECT_LT(sample_var / var, 1.5);
}

TEST(SpectrumEstimate, LambdaKInTheGapOfAWellSeparatedSpectrum) {
  // Ring of 10 cliques: lambda_10 ~ 0.01, lambda_11 = 1. The estimate must fall between them.
  Communicator self(MPI_COMM_SELF);
  const Eigen::MatrixXd l = normalised_laplacian(ring_of_cliques(10, 20));
  const Eigen::VectorXd ev = eigenvalues(l);
  const auto op = serial_operator(self, l);
  const RowBlockReducer sums(op);
  for (std::uint64_t seed = 0; seed < 10; ++seed) {
    LambdaKOptions o;
    o.seed = seed;
    const auto est = estimate_lambda_k(op, sums, 2.0, 10, o);
    EXPECT_GT(est.lambda_k, ev(9)) << seed;
    EXPECT_LT(est.lambda_k, ev(10)) << seed;
    EXPECT_LE(est.count, 10);
  }
}

TEST(SpectrumEstimate, ZeroCountToleranceIsTheExactRoundingRule) {
  Communicator self(MPI_COMM_SELF);
  const auto op = serial_operator(self, normalised_laplacian(grid_2d(20, 20)));
  const RowBlockReducer sums(op);
  for (std::uint64_t seed = 0; seed < 4; ++seed) {
    LambdaKOptions o;
    o.seed = seed;
    o.count_tolerance = 0.0;
    const auto est = estimate_lambda_k(op, sums, 2.0, 30, o);
    EXPECT_EQ(est.count, 30) << seed;
  }
}

TEST(SpectrumEstimate, LambdaKWithinAFewEigenvaluesOnADenseSpectrum) {
  // 20 x 20 grid, K = 30: eigenvalues ~0.008 apart near lambda_K. At exit K - b <= X(lambda^) <= K + 1/2 with
  // b = max(1/2, z sqrt(2 X / Lr)) <= max(1/2, z sqrt(2 (K + 1/2) / Lr)) (the acceptance band), so
  // |#{lambda_i <= lambda^} - K| <= |mu - count| (soft edge, exact) + dev(20) + b.
  Communicator self(MPI_COMM_SELF);
  const Eigen::MatrixXd l = normalised_laplacian(grid_2d(20, 20));
  const Eigen::VectorXd ev = eigenvalues(l);
  const auto op = serial_operator(self, l);
  const RowBlockReducer sums(op);
  for (int lr : {0, 100}) {
    for (std::uint64_t seed = 0; seed < 4; ++seed) {
      LambdaKOptions o;
      o.seed = seed;
      o.n_probe = lr;
      const auto est = estimate_lambda_k(op, sums, 2.0, 30, o);
      ASSERT_LE(est.iterations, 10);
      const auto s = exact_stats(ev, est.lambda_k, o.order);
      const double band = std::max(0.5, o.count_tolerance * std::sqrt(2.0 * 30.5 / est.n_probe));
      EXPECT_LE(std::abs(s.count - 30), std::abs(s.mu - s.count) + deviation(s, est.n_probe) + band) << lr << " " << seed;
      if (lr == 100) {
        EXPECT_LE(std::abs(s.count - 30), 8) << seed;  // a few eigenvalues: the soft edge dominates
      }
    }
  }
}

TEST(SpectrumEstimate, KBelowTheMultiplicityOfZeroTerminates) {
  // Two disconnected rings of cliques: eigenvalue 0 twice. K = 1 cannot be isolated; the search must stop.
  Communicator self(MPI_COMM_SELF);
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(120, 120);
  a.topLeftCorner(60, 60) = ring_of_cliques(4, 15);
  a.bottomRightCorner(60, 60) = ring_of_cliques(4, 15);
  const auto op = serial_operator(self, normalised_laplacian(a));
  const auto est = estimate_lambda_k(op, RowBlockReducer(op), 2.0, 1);
  EXPECT_LE(est.iterations, LambdaKOptions{}.max_iterations);
  EXPECT_GE(est.lambda_k, 0.0);
  EXPECT_LT(est.lambda_k, 0.1);
}
