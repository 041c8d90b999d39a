// GP building blocks without MPI: batched CG and its Lanczos quadrature on dense matrices, the hyperparameter
// map, and the observation file reader's errors.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>

#include "graphrf/core/error.hpp"
#include "graphrf/gp/batched_conjugate_gradient.hpp"
#include "graphrf/gp/gp_observations.hpp"
#include "graphrf/gp/gp_parameters.hpp"
#include "graphrf/gp/lanczos_quadrature.hpp"

using namespace graphrf;

namespace {

// A random SPD matrix with eigenvalues in [0.5, 10].
Eigen::MatrixXd spd(int n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd g(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) g(i, j) = normal(rng);
  const Eigen::HouseholderQR<Eigen::MatrixXd> qr(g);
  const Eigen::MatrixXd q = qr.householderQ();
  Eigen::VectorXd lambda(n);
  for (int i = 0; i < n; ++i) lambda(i) = 0.5 + 9.5 * i / (n - 1);
  return q * lambda.asDiagonal() * q.transpose();
}

const ColumnDots plain_dots = [](const Eigen::MatrixXd& x, const Eigen::MatrixXd& y) -> Eigen::VectorXd {
  return x.cwiseProduct(y).colwise().sum().transpose();
};

std::string temp_file(const std::string& name, const std::string& content) {
  const std::string path = ::testing::TempDir() + "graphrf-gp-" + name;
  std::ofstream(path) << content;
  return path;
}

std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(BatchedCg, SolvesEveryColumnAndKeepsLanczosCoefficients) {
  const Eigen::MatrixXd a = spd(40, 1);
  Eigen::MatrixXd b = Eigen::MatrixXd::Random(40, 3);
  b.col(2).setZero();  // a zero right-hand side converges at once
  CgOptions options;
  options.tolerance = 1e-12;
  const CgResult r = batched_conjugate_gradient([&](const Eigen::MatrixXd& x) { return Eigen::MatrixXd(a * x); }, b, plain_dots, options);
  EXPECT_TRUE(r.converged);
  EXPECT_LE((r.x - a.ldlt().solve(b)).norm(), 1e-10 * b.norm());
  EXPECT_EQ(r.iterations[2], 0);
  EXPECT_GT(r.iterations[0], 5);
  EXPECT_EQ(r.alpha[0].size(), static_cast<size_t>(r.iterations[0]));
}

TEST(LanczosQuadrature, MatchesTheExactQuadraticFormOfLogA) {
  // z^T log(A) z with z = e_1 (unit norm), against the eigendecomposition. The Lanczos run to convergence
  // from e_1 makes the Gauss quadrature exact up to the CG tolerance.
  const Eigen::MatrixXd a = spd(30, 2);
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(a);
  const Eigen::MatrixXd log_a = eig.eigenvectors() * eig.eigenvalues().array().log().matrix().asDiagonal() * eig.eigenvectors().transpose();
  Eigen::MatrixXd z = Eigen::MatrixXd::Zero(30, 1);
  z(0, 0) = 1;
  CgOptions options;
  options.tolerance = 1e-14;
  const CgResult r = batched_conjugate_gradient([&](const Eigen::MatrixXd& x) { return Eigen::MatrixXd(a * x); }, z, plain_dots, options);
  EXPECT_NEAR(lanczos_log_quadrature(r.alpha[0], r.beta[0]), log_a(0, 0), 1e-9);
  // A diagonal matrix with 2 distinct eigenvalues: 2 steps suffice and the quadrature is exact.
  Eigen::MatrixXd d = Eigen::MatrixXd::Zero(4, 4);
  d.diagonal() << 1, 4, 1, 4;
  Eigen::MatrixXd ones = Eigen::MatrixXd::Ones(4, 1);
  const CgResult rd = batched_conjugate_gradient([&](const Eigen::MatrixXd& x) { return Eigen::MatrixXd(d * x); }, ones, plain_dots, options);
  EXPECT_EQ(rd.iterations[0], 2);
  EXPECT_NEAR(4 * lanczos_log_quadrature(rd.alpha[0], rd.beta[0]), 2 * std::log(4.0), 1e-12);  // ||z||^2 = 4
}

TEST(GpParameters, DiffusionJacobianMatchesCentralDifferences) {
  KernelSpec k;
  k.beta = 1.7;
  // laplacian_scale 3: --weights combinatorial with d_max = 3 (the series has beta * 3; beta is still the parameter).
  for (double scale : {1.0, 3.0}) {
    for (KernelKind kind : {KernelKind::diffusion, KernelKind::regularized_laplacian}) {
      k.kind = kind;
      k.laplacian_scale = scale;
      const GpParameters params(k, GpLearn::hyper, 12, 1.3, 0.2);
      const auto p = params.initial();
      ASSERT_EQ(p.size(), 3u);
      const Eigen::MatrixXd j = params.f_jacobian(p);
      const double h = 1e-6;
      for (size_t q = 0; q < p.size(); ++q) {
        auto up = p, down = p;
        up[q] += h;
        down[q] -= h;
        const auto fu = params.f(up), fd = params.f(down);
        for (int t = 0; t < 12; ++t)
          EXPECT_NEAR(j(t, static_cast<Eigen::Index>(q)), (fu[static_cast<size_t>(t)] - fd[static_cast<size_t>(t)]) / (2 * h), 1e-7)
              << "parameter " << q << " t " << t << " scale " << scale;
      }
      EXPECT_NEAR(params.sigma_f(p), 1.3, 1e-15);
      EXPECT_NEAR(params.beta(p), 1.7, 1e-15);
      EXPECT_NEAR(params.sigma_n(p), 0.2, 1e-15);
    }
  }
  k.kind = KernelKind::diffusion;
  k.laplacian_scale = 1.0;
  const GpParameters f_mode(k, GpLearn::f, 5, 2.0, 0.1);
  EXPECT_EQ(f_mode.size(), 6u);
  EXPECT_NEAR(f_mode.initial()[0], 2.0 * std::exp(-0.85), 1e-14);  // sigma_f e^{-beta/2}
}

TEST(GpObservations, ReadsCsvAndNamesTheLineOfEveryBadRow) {
  const auto good = read_observations(temp_file("good.csv", "node,speed\n# comment\n3,1.5\n7, -2e-1\n"));
  ASSERT_EQ(good.id.size(), 2u);
  EXPECT_EQ(good.id[1], 7);
  EXPECT_DOUBLE_EQ(good.y[1], -0.2);
  const std::string dup = temp_file("dup.csv", "node,y\n3,1\n4,2\n3,5\n");
  EXPECT_EQ(error_of([&] { read_observations(dup); }), dup + " line 4: node 3 is listed twice");
  const std::string nan = temp_file("nan.csv", "node,y\n3,nan\n");
  EXPECT_EQ(error_of([&] { read_observations(nan); }), nan + " line 2: y 'nan' is not a finite number");
  const std::string bad_id = temp_file("badid.csv", "node,y\n3,1\nx7,2\n");
  EXPECT_EQ(error_of([&] { read_observations(bad_id); }), bad_id + " line 3: node id 'x7' is not an integer");
  const std::string short_row = temp_file("short.csv", "node,y\n3\n");
  EXPECT_NE(error_of([&] { read_observations(short_row); }).find(short_row + " line 2: expected node,y"), std::string::npos);
  const auto ids = read_id_list(temp_file("ids.txt", "node\n5\n9\n"));
  EXPECT_EQ(ids.id, (std::vector<std::int64_t>{5, 9}));
}

// Graphs with string ids: ids are kept as written (matched by name later); the header is the line whose y is
// not a number, and a repeated name is an error naming the line.
TEST(GpObservations, ReadsIdsAsNamesForNamedGraphs) {
  const auto named = read_observations(temp_file("named.csv", "node,y\n2,5.0\nb,-1\n010,2\n"), true);
  ASSERT_EQ(named.name.size(), 3u);
  EXPECT_EQ(named.name[0], "2");
  EXPECT_EQ(named.name[1], "b");
  EXPECT_EQ(named.name[2], "010");  // the token as written, not the number 10
  EXPECT_EQ(named.line, (std::vector<std::int64_t>{2, 3, 4}));
  const auto headless = read_observations(temp_file("headless.csv", "a,1\nb,2\n"), true);
  EXPECT_EQ(headless.name.size(), 2u);
  const std::string dup = temp_file("dupnames.csv", "node,y\nb,1\na,2\nb,5\n");
  EXPECT_EQ(error_of([&] { read_observations(dup, true); }), dup + " line 4: node 'b' is listed twice");
  const auto ids = read_id_list(temp_file("names.txt", "node\nb\n"), true);
  EXPECT_TRUE(ids.first_may_be_header);  // "node" is dropped when it names no node
  EXPECT_EQ(ids.name.size(), 2u);
}
