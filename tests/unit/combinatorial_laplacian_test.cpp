// Kernels of the combinatorial Laplacian L = D - A by walks on W = I - L / d_max (--weights combinatorial),
// against exp(-beta L) and (I + beta L)^-1 computed here by a dense eigendecomposition of L itself.
//
// The expected-value recursion: a walker at v survives a hop with probability 1 - p, takes arc a with
// probability P(a) (1 / arcs of v, or step weight / row weight) and multiplies its load by factor(a). So
// E[load * 1{at u after t hops}] = (T^t)_vu with T_vu = sum over arcs a of v to u of (1 - p) P(a) factor(a),
// exactly (Markov property; every coupling keeps these marginals). The asymmetric estimate
// sum_t alpha_t (load deposits after t hops) then has expectation sum_{t <= max_length} alpha_t T^t. The
// test builds T from the arcs the walk engine builds (append_walk_row) and the series from the kernel's
// alpha, and compares with h(L) from L's own spectrum: no random draws, so no failure probability.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <functional>
#include <vector>

#include "graphrf/core/error.hpp"
#include "graphrf/grf/combinatorial_laplacian.hpp"
#include "graphrf/grf/kernel.hpp"
#include "graphrf/walks/load_factors.hpp"

using namespace graphrf;

namespace {

// A small weighted graph: a weighted 5-cycle with a chord, a pendant node, a node with a self-loop, and an
// isolated node (its L row is 0, so h(L) has h(0) = 1 there for diffusion).
Eigen::MatrixXd small_weighted_graph() {
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(7, 7);
  auto edge = [&](int i, int j, double w) { a(i, j) = a(j, i) = w; };
  edge(0, 1, 0.5);
  edge(1, 2, 3.0);
  edge(2, 3, 1.0);
  edge(3, 4, 2.0);
  edge(4, 0, 0.7);
  edge(0, 2, 1.5);
  edge(4, 5, 0.25);
  a(3, 3) = 0.8;  // a self-loop: d_3 counts it once, and (D - A)_33 = d_3 - 0.8
  return a;        // node 6 is isolated
}

// h(L) by L's eigendecomposition.
Eigen::MatrixXd matrix_function(const Eigen::MatrixXd& l, const std::function<double(double)>& h) {
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(l);
  Eigen::VectorXd values = eig.eigenvalues();
  for (Eigen::Index i = 0; i < values.size(); ++i) values(i) = h(values(i));
  return eig.eigenvectors() * values.asDiagonal() * eig.eigenvectors().transpose();
}

// The expected one-hop transfer T of the walk engine's rows for this adjacency (walk options o).
Eigen::MatrixXd expected_transfer(const Eigen::MatrixXd& a, const WalkOptions& o) {
  const Eigen::Index n = a.rows();
  const Eigen::VectorXd degree = a.rowwise().sum();
  const double keep = 1.0 - o.p_halt;
  Eigen::MatrixXd t = Eigen::MatrixXd::Zero(n, n);
  for (Eigen::Index v = 0; v < n; ++v) {
    std::vector<std::int64_t> col;
    std::vector<double> weight, normalized;
    for (Eigen::Index u = 0; u < n; ++u)
      if (a(v, u) != 0.0) {
        col.push_back(u);
        weight.push_back(a(v, u));
        normalized.push_back(a(v, u) / std::sqrt(degree(v) * degree(u)));
      }
    std::vector<WalkArc> row;
    append_walk_row(o, v, col.data(), normalized.data(), weight.data(), static_cast<std::int64_t>(col.size()), degree(v), keep, row);
    double row_weight = 0;
    for (const WalkArc& arc : row) row_weight += arc.step_weight;
    for (const WalkArc& arc : row) {
      const double p = o.step == StepRule::uniform ? 1.0 / static_cast<double>(row.size()) : arc.step_weight / row_weight;
      t(v, arc.target) += keep * p * arc.factor;
    }
  }
  return t;
}

// sum_{t < alpha.size()} alpha_t T^t by Horner's rule.
Eigen::MatrixXd series(const std::vector<double>& alpha, const Eigen::MatrixXd& t) {
  Eigen::MatrixXd m = Eigen::MatrixXd::Zero(t.rows(), t.cols());
  for (auto it = alpha.rbegin(); it != alpha.rend(); ++it) m = (m * t).eval() + *it * Eigen::MatrixXd::Identity(t.rows(), t.cols());
  return m;
}

double relative_error(const Eigen::MatrixXd& x, const Eigen::MatrixXd& exact) { return (x - exact).norm() / exact.norm(); }

struct LaplacianCase {
  Eigen::MatrixXd a, laplacian;
  double d_max = 0;
};

LaplacianCase laplacian_case() {
  LaplacianCase s;
  s.a = small_weighted_graph();
  const Eigen::VectorXd degree = s.a.rowwise().sum();
  s.laplacian = Eigen::MatrixXd(degree.asDiagonal()) - s.a;
  s.d_max = degree.maxCoeff();
  return s;
}

WalkOptions combinatorial_walks(double d_max, StepRule step, double p_halt) {
  WalkOptions o;
  o.weights = WeightMode::combinatorial;
  o.max_degree = d_max;  // what bind_combinatorial_laplacian sets from the distributed graph
  o.step = step;
  o.p_halt = p_halt;
  return o;
}

}  // namespace

TEST(CombinatorialLaplacian, OneHopOfTheWalkEngineHasExpectationIMinusLOverDMax) {
  const LaplacianCase s = laplacian_case();
  const Eigen::MatrixXd w = Eigen::MatrixXd::Identity(7, 7) - s.laplacian / s.d_max;
  EXPECT_GE(w.minCoeff(), 0.0);  // a matrix walks can sample: self-loops (d_max - d_i)/d_max >= 0
  for (StepRule step : {StepRule::uniform, StepRule::weighted})
    for (double p : {0.2, 0.5}) {
      const Eigen::MatrixXd t = expected_transfer(s.a, combinatorial_walks(s.d_max, step, p));
      EXPECT_LT((t - w).cwiseAbs().maxCoeff(), 1e-15) << (step == StepRule::uniform ? "uniform" : "weighted") << " p " << p;
      EXPECT_LT((t.rowwise().sum() - Eigen::VectorXd::Ones(7)).cwiseAbs().maxCoeff(), 1e-15);  // rho(W) = 1
    }
}

TEST(CombinatorialLaplacian, ExpectedAsymmetricEstimateIsTheKernelOfDMinusA) {
  const LaplacianCase s = laplacian_case();
  // Work grows with beta d_max (here d_max = 5.5, beta d_max = 4.4): 121 terms leave a tail far below 1e-12.
  const int terms = 121;
  KernelSpec diffusion;
  diffusion.kind = KernelKind::diffusion;
  diffusion.beta = 0.8;
  diffusion.laplacian_scale = s.d_max;
  KernelSpec regularized;
  regularized.kind = KernelKind::regularized_laplacian;
  regularized.beta = 0.3;
  regularized.power = 1;
  regularized.laplacian_scale = s.d_max;
  const Eigen::MatrixXd heat = matrix_function(s.laplacian, [](double l) { return std::exp(-0.8 * l); });
  const Eigen::MatrixXd resolvent = (Eigen::MatrixXd::Identity(7, 7) + 0.3 * s.laplacian).inverse();
  for (StepRule step : {StepRule::uniform, StepRule::weighted}) {
    const Eigen::MatrixXd t = expected_transfer(s.a, combinatorial_walks(s.d_max, step, 0.3));
    EXPECT_LT(relative_error(series(kernel_alpha(diffusion, terms), t), heat), 1e-12);
    // (I + beta L)^-1: geometric series in W with ratio c = beta d_max / (1 + beta d_max) = 0.62 (c^121 ~ 1e-25).
    EXPECT_LT(relative_error(series(kernel_alpha(regularized, terms), t), resolvent), 1e-12);
    // The symmetric estimator's Phi has expectation f(W) with f * f = alpha: (f(W))^2 is the kernel too.
    const Eigen::MatrixXd phi = series(kernel_f(diffusion, terms), t);
    EXPECT_LT(relative_error(phi * phi, heat), 1e-12);
  }
  // The isolated node keeps its walkers (W_66 = 1) and exp(-beta L)_66 = 1.
  EXPECT_NEAR(heat(6, 6), 1.0, 1e-14);
}

TEST(CombinatorialLaplacian, KernelClosedFormsUseBetaTimesTheScale) {
  KernelSpec k;
  k.kind = KernelKind::diffusion;
  k.beta = 0.4;
  k.laplacian_scale = 6.0;
  for (double mu : {-1.0, -0.3, 0.0, 0.5, 1.0}) {  // mu an eigenvalue of W = I - L/6: L has 6 (1 - mu)
    EXPECT_NEAR(kernel_of_w_eigenvalue(k, mu), std::exp(-0.4 * 6.0 * (1.0 - mu)), 1e-15);
    EXPECT_NEAR(kernel_of_laplacian_eigenvalue(k, 1.0 - mu), std::exp(-0.4 * 6.0 * (1.0 - mu)), 1e-15);
  }
  k.kind = KernelKind::cosine;
  k.beta = 0.05;
  EXPECT_NEAR(kernel_of_w_eigenvalue(k, 0.25), std::cos(0.05 * 6.0 * 0.75), 1e-15);
  EXPECT_NE(describe(k).find("L = D - A"), std::string::npos) << describe(k);
  // Kinds alpha and f are coefficients of powers of W whatever the scale.
  KernelSpec a;
  a.kind = KernelKind::alpha;
  a.coefficients = {1.0, 0.5};
  a.laplacian_scale = 6.0;
  EXPECT_EQ(kernel_alpha(a, 3), (std::vector<double>{1.0, 0.5, 0.0}));
}

TEST(CombinatorialLaplacian, KernelsThatAreNotFunctionsOfLAreRefused) {
  for (KernelKind kind : {KernelKind::exp_adjacency, KernelKind::p_step}) {
    KernelSpec k;
    k.kind = kind;
    k.laplacian_scale = 3.0;
    try {
      validate_parameters(k);
      ADD_FAILURE() << kernel_kind_name(kind) << " accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("kernel.kind"), std::string::npos) << e.what();
    }
  }
  KernelSpec k;
  k.kind = KernelKind::diffusion;
  k.beta = 200;
  k.laplacian_scale = 10;  // beta d_max = 2000: e^2000 overflows; the message names the product
  try {
    validate_parameters(k);
    ADD_FAILURE() << "beta d_max = 2000 accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("beta * d_max"), std::string::npos) << e.what();
  }
}

TEST(CombinatorialLaplacian, SeriesTermsGrowWithBetaTimesDMax) {
  // Diffusion's f_t = e^{-b/2} (b/2)^t / t! is the Poisson(b/2) mass function (sum 1), b = beta d_max: the
  // terms needed are the first K with P(Poisson(b/2) >= K) <= 1e-6, computed here by its own recurrence.
  for (double d_max : {1.0, 4.0, 40.0}) {
    KernelSpec k;
    k.kind = KernelKind::diffusion;
    k.beta = 1.0;
    k.laplacian_scale = d_max;
    const double lambda = d_max / 2.0;
    double mass = std::exp(-lambda), cdf = 0;
    int want = 0;
    for (int t = 0;; ++t) {
      cdf += mass;
      if (1.0 - cdf <= 1e-6 * (1.0 + 1e-9)) {
        want = t + 1;
        break;
      }
      mass *= lambda / (t + 1);
    }
    const int got = series_terms_needed(k);
    EXPECT_NEAR(got, want, 1) << "d_max " << d_max;  // one term of slack for rounding at the threshold
  }
}

TEST(CombinatorialLaplacian, RowSumRelativeVarianceMatchesTheWalkLengthDistribution) {
  // Independently: with weighted steps a walker of length L (L ~ Geometric(p) capped at T) contributes
  // S = sum_{t <= L} |f_t| (1 - p)^-t, so E[S^k] = sum_L P(L) S(L)^k exactly.
  for (double b : {0.85, 17.0})
    for (double p : {0.1, 0.3, 0.5}) {
      KernelSpec k;
      k.kind = KernelKind::diffusion;
      k.beta = b;
      const int max_length = 60;
      const std::vector<double> f = kernel_f(k, max_length + 1);
      double mean = 0, second = 0, partial = 0;
      for (int length = 0; length <= max_length; ++length) {
        partial += std::abs(f[static_cast<size_t>(length)]) * std::pow(1.0 - p, -length);
        const double probability = length < max_length ? p * std::pow(1.0 - p, length) : std::pow(1.0 - p, length);
        mean += probability * partial;
        second += probability * partial * partial;
      }
      const double want = second / (mean * mean) - 1.0;
      EXPECT_NEAR(row_sum_relative_variance(f, p), want, 1e-9 * std::max(1.0, want)) << "b " << b << " p " << p;
    }
}
