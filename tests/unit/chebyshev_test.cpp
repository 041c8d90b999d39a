// Chebyshev filtering against exact spectral filtering computed densely, and the Jackson band-pass.
#include "graphrf/spectral/chebyshev.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "wavelet_test_graphs.hpp"

using namespace graphrf;
using namespace graphrf::testing;

TEST(Chebyshev, SmoothFilterEqualsExactSpectralFilterAtDegree60) {
  // g = exp(-2 lambda) on [0, 2]: the interpolation error at degree 60 is far below 1e-10 (the Chebyshev
  // coefficients of exp(-2 - 2t) decay like I_k(2)), so the comparison tests the recurrence itself.
  Communicator self(MPI_COMM_SELF);
  auto g = [](double x) { return std::exp(-2.0 * x); };
  const auto c = chebyshev_coefficients(g, 60, 2.0);
  for (const Eigen::MatrixXd& a : {grid_2d(12, 13), ring_of_cliques(8, 12)}) {
    const Eigen::MatrixXd l = normalised_laplacian(a);
    const auto op = serial_operator(self, l);
    const Eigen::MatrixXd x = keyed_test_block(op.row_keys, 6, 5);
    const Eigen::MatrixXd y = chebyshev_filter(op, 2.0, {c}, x)[0];
    const Eigen::MatrixXd exact = spectral_function(l, g) * x;
    EXPECT_LE((y - exact).cwiseAbs().maxCoeff(), 1e-10);
  }
}

TEST(Chebyshev, OtherIntervalsUseTheShiftedRecurrence) {
  // 3 L has its spectrum in [0, 6]: filter on [0, 6] and compare with g(3 lambda).
  Communicator self(MPI_COMM_SELF);
  const Eigen::MatrixXd l3 = 3.0 * normalised_laplacian(grid_2d(9, 11));
  auto g = [](double x) { return 1.0 / (1.0 + x); };
  const auto c = chebyshev_coefficients(g, 60, 6.0, 200);
  const auto op = serial_operator(self, l3);
  const Eigen::MatrixXd x = keyed_test_block(op.row_keys, 3, 6);
  const Eigen::MatrixXd y = chebyshev_filter(op, 6.0, {c}, x)[0];
  // Interpolation error of 1/(1+x) at degree 60 on [0, 6]: rho^-60 with rho = 1/2 + sqrt(1/4 + ...) ~ 2.4: tiny.
  EXPECT_LE((y - spectral_function(l3, g) * x).cwiseAbs().maxCoeff(), 1e-10);
}

TEST(Chebyshev, SeveralFiltersInOnePassEqualSeparatePasses) {
  Communicator self(MPI_COMM_SELF);
  const auto op = serial_operator(self, normalised_laplacian(grid_2d(10, 10)));
  const Eigen::MatrixXd x = keyed_test_block(op.row_keys, 4, 7);
  const auto c1 = chebyshev_coefficients([](double t) { return std::exp(-t); }, 30, 2.0);
  const auto c2 = jackson_chebyshev_coefficients(0.0, 0.7, 45, 2.0);
  const std::vector<double> c3 = {2.0};  // degree 0: p = 1
  int applications = 0;
  auto counting = op;
  counting.apply = [&](const Eigen::MatrixXd& a, Eigen::MatrixXd& b) {
    ++applications;
    op.apply(a, b);
  };
  const auto together = chebyshev_filter(counting, 2.0, {c1, c2, c3}, x);
  EXPECT_EQ(applications, 45);
  EXPECT_EQ(together[0], chebyshev_filter(op, 2.0, {c1}, x)[0]);
  EXPECT_EQ(together[1], chebyshev_filter(op, 2.0, {c2}, x)[0]);
  EXPECT_EQ(together[2], x);
}

TEST(Chebyshev, ScalarEvaluationMatchesTheFunction) {
  auto g = [](double x) { return std::sqrt(std::exp(-3.0 * x)); };
  const auto c = chebyshev_coefficients(g, 30, 2.0);
  for (int i = 0; i <= 200; ++i) {
    const double x = 2.0 * i / 200;
    EXPECT_NEAR(chebyshev_eval(c, 2.0, x), g(x), 1e-13) << x;
  }
  // The whole interval as a band gives p = 1 (c_0 = 2 is stored doubled).
  const auto all = jackson_chebyshev_coefficients(0.0, 2.0, 20, 2.0);
  EXPECT_DOUBLE_EQ(all[0], 2.0);
  for (double x : {0.0, 0.3, 1.0, 2.0}) EXPECT_NEAR(chebyshev_eval(all, 2.0, x), 1.0, 1e-14);
}

TEST(Chebyshev, JacksonBandPassStaysInUnitInterval) {
  // The Jackson-damped series is the indicator convolved with a positive kernel of unit mass, so it lies in
  // [0, 1]; only rounding (~1e-15) may leave it. The undamped series overshoots by ~9% (Gibbs).
  const std::vector<std::pair<double, double>> bands = {{0.0, 0.3}, {0.0, 1.0}, {0.4, 1.1}, {1.5, 2.0}, {0.9, 0.95}};
  for (int degree : {5, 20, 50, 60, 200}) {
    for (auto [a, b] : bands) {
      const auto c = jackson_chebyshev_coefficients(a, b, degree, 2.0);
      double lo = 1, hi = 0;
      for (int i = 0; i <= 4000; ++i) {
        const double p = chebyshev_eval(c, 2.0, 2.0 * i / 4000);
        lo = std::min(lo, p);
        hi = std::max(hi, p);
      }
      EXPECT_GE(lo, -1e-13) << degree << " [" << a << ", " << b << "]";
      EXPECT_LE(hi, 1.0 + 1e-13) << degree << " [" << a << ", " << b << "]";
    }
  }
}

TEST(Chebyshev, JacksonBandPassConvergesAwayFromTheEdges) {
  // Max error against 1_[0.5, 1.2] over points at least 0.1 from either edge, for growing degree.
  double previous = 1.0;
  for (int degree : {20, 40, 80, 160, 320}) {
    const auto c = jackson_chebyshev_coefficients(0.5, 1.2, degree, 2.0);
    double err = 0;
    for (int i = 0; i <= 4000; ++i) {
      const double x = 2.0 * i / 4000;
      if (std::abs(x - 0.5) < 0.1 || std::abs(x - 1.2) < 0.1) continue;
      const double target = (x >= 0.5 && x <= 1.2) ? 1.0 : 0.0;
      err = std::max(err, std::abs(chebyshev_eval(c, 2.0, x) - target));
    }
    EXPECT_LT(err, previous) << degree;
    previous = err;
  }
  EXPECT_LT(previous, 1e-4);  // 5.6e-5 at degree 320
}
