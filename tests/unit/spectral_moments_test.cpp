// Chebyshev spectral moments and the moment-based eigencount, against dense eigendecompositions computed in
// the test, and the lambda_K search built on them.
//
// Tolerances. The moments of a probe block R are exact functions of R, so they are compared with the dense
// formula mu_k = sum_i T_k(t_i) ||u_i^T R||^2 (t_i = lambda_i - 1 on [0, 2]) to rounding: the recurrence and
// the doubling identity lose at most a few hundred ulps of sum_l ||r_l||^2 (1e-11 relative is 4e4 ulps).
// The count is a random variable: X = ||p(L) R||_F^2 with Lr columns of N(0, 1/Lr) entries has mean tr(P^2)
// and, by Laurent and Massart (2000, Lemma 1) with weights p(lambda_i)^2 / Lr,
//   P(|X - tr(P^2)| > 2 sqrt(t tr(P^4) / Lr) + 2 t / Lr) <= 2 e^{-t};
// with t = 20 each check fails for at most 4e-9 of seeds. The soft edge tr(P^2) - #{lambda_i <= lambda} is
// computed exactly from the eigenvalues.
#include "graphrf/spectral/spectral_moments.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "graphrf/spectral/chebyshev.hpp"
#include "graphrf/spectral/spectrum_estimate.hpp"
#include "wavelet_test_graphs.hpp"

using namespace graphrf;
using namespace graphrf::testing;

namespace {
struct Spectrum {
  Eigen::VectorXd values;
  Eigen::MatrixXd vectors;
};

Spectrum dense_spectrum(const Eigen::MatrixXd& l) {
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(l);
  return {eig.eigenvalues(), eig.eigenvectors()};
}

// T_k(t) = cos(k arccos t) on [-1, 1], independent of the recurrence under test.
double chebyshev_t(int k, double t) { return std::cos(k * std::acos(std::clamp(t, -1.0, 1.0))); }

double exact_count(const Eigen::VectorXd& ev, double lambda) {
  int n = 0;
  for (Eigen::Index i = 0; i < ev.size(); ++i) n += ev(i) <= lambda ? 1 : 0;
  return n;
}
}  // namespace

TEST(SpectralMoments, MatchTheDenseSpectralSumOfTheProbes) {
  Communicator self(MPI_COMM_SELF);
  for (const Eigen::MatrixXd& a : {grid_2d(9, 11), ring_of_cliques(6, 8)}) {
    const Eigen::MatrixXd l = normalised_laplacian(a);
    const auto op = serial_operator(self, l);
    const RowBlockReducer sums(op);
    const Eigen::MatrixXd r = eigencount_probes(op, 7, 3);
    const int degree = 40;
    const auto mu = chebyshev_moments(op, sums, 2.0, r, degree);
    ASSERT_EQ(mu.size(), size_t(2 * degree + 1));
    const auto s = dense_spectrum(l);
    const Eigen::VectorXd weight = (s.vectors.transpose() * r).rowwise().squaredNorm();  // ||u_i^T R||^2
    for (int k = 0; k <= 2 * degree; ++k) {
      double want = 0.0;
      for (Eigen::Index i = 0; i < weight.size(); ++i) want += chebyshev_t(k, s.values(i) - 1.0) * weight(i);
      EXPECT_NEAR(mu[size_t(k)], want, 1e-11 * weight.sum()) << k;
    }
  }
}

TEST(SpectralMoments, FilteredNormEqualsTheFilteredEigencount) {
  // The moment formula and filtering the probes again compute the same number, for any cut-off and degree.
  Communicator self(MPI_COMM_SELF);
  const auto op = serial_operator(self, normalised_laplacian(grid_2d(14, 13)));
  const RowBlockReducer sums(op);
  const Eigen::MatrixXd r = eigencount_probes(op, 10, 8);
  const auto mu = chebyshev_moments(op, sums, 2.0, r, 50);
  for (int order : {10, 50})
    for (double lambda : {0.01, 0.1, 0.37, 1.2, 1.99}) {
      const double direct = eigencount(op, sums, 2.0, lambda, r, order);
      const double from_moments =
          filtered_norm_from_moments(mu, jackson_chebyshev_coefficients(0.0, lambda, order, 2.0));
      EXPECT_NEAR(from_moments, direct, 1e-10 * double(op.n_global)) << order << " " << lambda;
    }
  EXPECT_THROW(filtered_norm_from_moments(chebyshev_moments(op, sums, 2.0, r, 5), std::vector<double>(7, 1.0)), Error);
}

TEST(SpectralMoments, MomentCountWithinDerivedToleranceOfExactEigenvalueCounts) {
  Communicator self(MPI_COMM_SELF);
  struct Case {
    Eigen::MatrixXd a;
    double lambda;
  };
  const std::vector<Case> cases = {{ring_of_cliques(10, 20), 0.5}, {grid_2d(20, 20), 0.1}, {grid_2d(20, 20), 0.5},
                                   {grid_2d(20, 20), 1.3}};
  const int order = 50;
  for (const auto& [a, lambda] : cases) {
    const Eigen::MatrixXd l = normalised_laplacian(a);
    const auto op = serial_operator(self, l);
    const RowBlockReducer sums(op);
    const auto ev = dense_spectrum(l).values;
    const auto c = jackson_chebyshev_coefficients(0.0, lambda, order, 2.0);
    double tr2 = 0, tr4 = 0;
    for (Eigen::Index i = 0; i < ev.size(); ++i) {
      const double p2 = std::pow(chebyshev_eval(c, 2.0, ev(i)), 2);
      tr2 += p2;
      tr4 += p2 * p2;
    }
    const double count = exact_count(ev, lambda);
    for (int lr : {default_probe_count(op.n_global), 100}) {
      const double dev = 2.0 * std::sqrt(20.0 * tr4 / lr) + 40.0 / lr;
      for (std::uint64_t seed : {1u, 2u, 3u}) {
        const auto mu = chebyshev_moments(op, sums, 2.0, eigencount_probes(op, lr, seed), order);
        const double x = filtered_norm_from_moments(mu, c);
        EXPECT_LE(std::abs(x - tr2), dev) << lambda << " Lr " << lr;
        EXPECT_LE(std::abs(x - count), std::abs(tr2 - count) + dev) << lambda << " Lr " << lr;
      }
    }
  }
}

TEST(SpectralMoments, LambdaKIsTheMiddleOfTheAcceptanceWindow) {
  // Ring of 10 cliques: lambda_10 ~ 0.01, lambda_11 ~ 1.05. When the count's plateau across the gap lies in the
  // acceptance band, the window spans most of the gap and lambda_K lands mid-gap; always, the window is
  // consistent (its edges and middle accepted) and lambda_K is inside the gap.
  Communicator self(MPI_COMM_SELF);
  const Eigen::MatrixXd l = normalised_laplacian(ring_of_cliques(10, 20));
  const auto ev = dense_spectrum(l).values;
  const auto op = serial_operator(self, l);
  const RowBlockReducer sums(op);
  int plateau_in_band = 0;
  for (std::uint64_t seed = 0; seed < 10; ++seed) {
    LambdaKOptions o;
    o.seed = seed;
    o.n_probe = 40;
    const auto est = estimate_lambda_k(op, sums, 2.0, 10, o);
    EXPECT_GT(est.lambda_k, ev(9)) << seed;
    EXPECT_LT(est.lambda_k, ev(10)) << seed;
    ASSERT_LT(est.window_lower, est.window_upper) << seed;
    EXPECT_DOUBLE_EQ(est.lambda_k, 0.5 * (est.window_lower + est.window_upper));
    const auto mu = chebyshev_moments(op, sums, 2.0, eigencount_probes(op, o.n_probe, seed), o.order);
    const double band = std::max(0.5, o.count_tolerance * std::sqrt(2.0 * 10.0 / o.n_probe));
    for (double at : {est.window_lower, est.lambda_k, est.window_upper}) {
      const double x = filtered_norm_from_moments(mu, jackson_chebyshev_coefficients(0.0, at, o.order, 2.0));
      EXPECT_LE(x, 10.5 + 1e-9) << seed;
      EXPECT_GE(x, 10.0 - band) << seed;  // accepted: K - x <= max(1/2, z sqrt(2 x / Lr)) <= band when x <= K
    }
    const double mid_gap =
        filtered_norm_from_moments(mu, jackson_chebyshev_coefficients(0.0, 0.5, o.order, 2.0));
    if (mid_gap <= 10.5 && 10.0 - mid_gap <= std::max(0.5, o.count_tolerance * std::sqrt(2.0 * mid_gap / o.n_probe))) {
      ++plateau_in_band;
      EXPECT_GT(est.lambda_k, 0.3) << seed;
      EXPECT_LT(est.lambda_k, 0.7) << seed;
    }
  }
  EXPECT_GE(plateau_in_band, 1);  // the mid-gap claim was exercised
}

TEST(SpectralMoments, ProductsWithTheOperatorAreTheMomentStepsOnly) {
  // The dichotomy costs `order` products with the probe block whatever its number of steps.
  Communicator self(MPI_COMM_SELF);
  auto op = serial_operator(self, normalised_laplacian(grid_2d(20, 20)));
  int products = 0;
  const auto apply = op.apply;
  op.apply = [&](const Eigen::MatrixXd& x, Eigen::MatrixXd& y) {
    ++products;
    apply(x, y);
  };
  LambdaKOptions o;
  o.eps = 1e-6;
  const auto est = estimate_lambda_k(op, RowBlockReducer(op), 2.0, 30, o);
  EXPECT_GE(est.iterations + est.refinement_steps, 10);
  EXPECT_EQ(products, o.order);
}
