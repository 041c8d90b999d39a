// GRF Gaussian processes across ranks against dense computations written here: the feature matrix Phi(f) is
// rebuilt densely from the gathered length-resolved walks, and every GP quantity is computed from it with
// Eigen's dense factorisations. Graphs are generated; seeds are fixed.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <numbers>
#include <random>

#include "graphrf/gp/gp_learning.hpp"
#include "graphrf/gp/gp_prediction.hpp"
#include "graphrf/graph/canonical_order.hpp"
#include "graphrf/grf/grf_pipeline.hpp"
#include "mpi_test_support.hpp"

using namespace graphrf;
using graphrf::testing::world;
using graphrf::testing::quiet_log;

namespace {

struct Setup {
  DistributedGraph g;
  GrfRun run;
  std::unique_ptr<GrfFeatureOperator> phi;
  GpData data;
  Eigen::VectorXd test;
  std::vector<std::int64_t> canonical_of_column;  // canonical index of each entry of run.by_length[0]
};

KernelSpec diffusion(double beta) {
  KernelSpec k;
  k.beta = beta;
  return k;
}

// Observations keyed by the canonical index c: y = sin(c) + c/N, training where c % 3 != 0 (if `all`, everywhere).
// S of the feature operator: the training nodes (as graphrf gp runs) or every node (Phi_x then comes from
// masking the whole of Phi inside gp_system).
enum class Subset { training, all };

std::unique_ptr<Setup> make_setup(const Communicator& comm, const std::string& graph, const std::string& partition,
                                  std::int64_t walkers, bool observe_all = false, Subset subset = Subset::training) {
  auto s = std::make_unique<Setup>();
  GraphOptions o;
  o.graph = graph;
  o.partition = partition;
  s->g = load_graph(comm, o);
  WalkOptions w;
  w.walkers = walkers;
  w.p_halt = 0.4;
  w.max_length = 12;
  w.seed = 11;
  s->run = compute_grf(s->g, diffusion(1.0), w, GrfEstimator::symmetric, quiet_log());
  s->phi = std::make_unique<GrfFeatureOperator>(s->g, s->run.by_length[0]);
  const std::int64_t n = s->g.n_local();
  s->data.y = Eigen::VectorXd::Zero(n);
  s->data.train = Eigen::VectorXd::Zero(n);
  s->test = Eigen::VectorXd::Zero(n);
  for (std::int64_t i = 0; i < n; ++i) {
    const auto c = s->g.canonical_index[static_cast<size_t>(i)];
    if (observe_all || c % 3 != 0) {
      s->data.train(i) = 1;
      s->data.y(i) = std::sin(static_cast<double>(c)) + static_cast<double>(c) / static_cast<double>(s->g.n_global());
    } else {
      s->test(i) = 1;
    }
  }
  s->data.n_train = comm.sum(static_cast<std::int64_t>(s->data.train.sum()));
  s->phi->restrict_rows(subset == Subset::training ? s->data.train : Eigen::VectorXd::Ones(n));
  if (subset == Subset::training) attach_training_space(s->g, s->data);  // otherwise built per call
  s->canonical_of_column = CanonicalOrder(s->g).to_canonical(s->run.by_length[0].col);
  return s;
}

// Every rank gets the full vector in canonical order.
Eigen::MatrixXd gather_canonical(const DistributedGraph& g, const Eigen::MatrixXd& local) {
  const Communicator& comm = *g.comm;
  const std::int64_t b = local.cols();
  std::vector<double> mine;
  for (std::int64_t i = 0; i < g.n_local(); ++i) {
    mine.push_back(static_cast<double>(g.canonical_index[static_cast<size_t>(i)]));
    for (std::int64_t k = 0; k < b; ++k) mine.push_back(local(i, k));
  }
  std::vector<double> send;
  for (int r = 0; r < comm.size(); ++r) send.insert(send.end(), mine.begin(), mine.end());
  const auto all = comm.alltoallv(send, Counts(static_cast<size_t>(comm.size()), static_cast<std::int64_t>(mine.size())));
  Eigen::MatrixXd out(g.n_global(), b);
  for (size_t k = 0; k < all.size(); k += static_cast<size_t>(b + 1))
    for (std::int64_t j = 0; j < b; ++j) out(static_cast<Eigen::Index>(all[k]), j) = all[k + 1 + static_cast<size_t>(j)];
  return out;
}

// The length-resolved walks gathered on every rank: M_t dense (canonical order), one per length.
std::vector<Eigen::MatrixXd> dense_lengths(const Setup& s) {
  const auto& m = s.run.by_length[0];
  const Communicator& comm = *s.g.comm;
  std::vector<double> mine;
  for (std::int64_t i = 0; i < m.n_local(); ++i)
    for (auto k = m.indptr[static_cast<size_t>(i)]; k < m.indptr[static_cast<size_t>(i) + 1]; ++k) {
      const auto u = static_cast<size_t>(k);
      mine.insert(mine.end(), {static_cast<double>(s.g.canonical_index[static_cast<size_t>(i)]),
                               static_cast<double>(s.canonical_of_column[u]), static_cast<double>(m.length[u]), m.value[u]});
    }
  std::vector<double> send;
  for (int r = 0; r < comm.size(); ++r) send.insert(send.end(), mine.begin(), mine.end());
  const auto all = comm.alltoallv(send, Counts(static_cast<size_t>(comm.size()), static_cast<std::int64_t>(mine.size())));
  const Eigen::Index n = s.g.n_global();
  std::vector<Eigen::MatrixXd> out(static_cast<size_t>(s.phi->n_lengths()), Eigen::MatrixXd::Zero(n, n));
  for (size_t k = 0; k < all.size(); k += 4)
    out[static_cast<size_t>(all[k + 2])](static_cast<Eigen::Index>(all[k]), static_cast<Eigen::Index>(all[k + 1])) += all[k + 3];
  return out;
}

Eigen::MatrixXd dense_phi(const std::vector<Eigen::MatrixXd>& m, const std::vector<double>& f) {
  Eigen::MatrixXd phi = Eigen::MatrixXd::Zero(m[0].rows(), m[0].cols());
  for (size_t t = 0; t < m.size() && t < f.size(); ++t) phi += f[t] * m[t];
  return phi;
}

std::vector<Eigen::Index> where(const Eigen::VectorXd& mask) {
  std::vector<Eigen::Index> out;
  for (Eigen::Index i = 0; i < mask.size(); ++i)
    if (mask(i) != 0) out.push_back(i);
  return out;
}

Eigen::MatrixXd rows_of(const Eigen::MatrixXd& m, const std::vector<Eigen::Index>& rows) {
  Eigen::MatrixXd out(static_cast<Eigen::Index>(rows.size()), m.cols());
  for (size_t k = 0; k < rows.size(); ++k) out.row(static_cast<Eigen::Index>(k)) = m.row(rows[k]);
  return out;
}

// Dense LML of the GRF-GP: -1/2 y^T A^-1 y - 1/2 log det A - n/2 log 2 pi, A = Phi_x Phi_x^T + sigma_n^2 I.
double dense_lml(const Eigen::MatrixXd& phi, const Eigen::VectorXd& y_all, const std::vector<Eigen::Index>& train, double sigma_n) {
  const Eigen::MatrixXd px = rows_of(phi, train);
  Eigen::MatrixXd a = px * px.transpose();
  a.diagonal().array() += sigma_n * sigma_n;
  const Eigen::VectorXd y = rows_of(y_all, train);
  const Eigen::LLT<Eigen::MatrixXd> chol(a);
  const double log_det = 2 * chol.matrixLLT().diagonal().array().log().sum();
  return -0.5 * y.dot(chol.solve(y)) - 0.5 * log_det - 0.5 * static_cast<double>(train.size()) * std::log(2 * std::numbers::pi);
}

std::vector<double> scaled_diffusion_f(double sigma_f, double beta, int n) {
  std::vector<double> f = kernel_f(diffusion(beta), n);
  for (double& v : f) v *= sigma_f;
  return f;
}

}  // namespace

// S covering every row of some ranks only (the first half of the nodes, then every third): ranks must still
// agree on which side serves the products (a rank that used Phi's own rows while another used S's rows left the
// other's row fetch waiting). Phi_S C and Phi_S^T V against the dense Phi written here.
TEST(GrfFeatureOperator, SubsetCoveringSomeRanksWholly) {
  auto s = make_setup(world(), "grid:6x6", "block", 8);
  const std::int64_t n = s->g.n_local();
  Eigen::VectorXd mask = Eigen::VectorXd::Zero(n);
  Eigen::MatrixXd c(n, 2), v(n, 2);
  for (std::int64_t i = 0; i < n; ++i) {
    const auto k = static_cast<double>(s->g.canonical_index[static_cast<size_t>(i)]);
    mask(i) = (k < 18 || static_cast<std::int64_t>(k) % 3 != 0) ? 1 : 0;
    c.row(i) << std::sin(k), std::cos(2 * k);
    v.row(i) << 1 + k / 36, std::sin(3 * k);
  }
  s->phi->restrict_rows(mask);
  const std::vector<double> f = scaled_diffusion_f(1.0, 1.0, s->phi->n_lengths());
  s->phi->set_f(f);
  const Eigen::MatrixXd phi = dense_phi(dense_lengths(*s), f);
  const Eigen::MatrixXd mask_all = gather_canonical(s->g, mask);
  const Eigen::MatrixXd c_all = gather_canonical(s->g, c), v_all = gather_canonical(s->g, v);
  const Eigen::MatrixXd times = mask_all.col(0).asDiagonal() * (phi * c_all);
  const Eigen::MatrixXd transpose = phi.transpose() * (mask_all.col(0).asDiagonal() * v_all);
  EXPECT_LT((gather_canonical(s->g, s->phi->subset_times(c)) - times).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LT((gather_canonical(s->g, s->phi->transpose_times(v)) - transpose).cwiseAbs().maxCoeff(), 1e-12);
}

TEST(GrfGp, DistributedCgMatchesDenseSolve) {
  for (const std::string partition : {"block", "metis"}) {
    auto s = make_setup(world(), "grid:6x7", partition, 8);
    s->phi->set_f(scaled_diffusion_f(1.3, 1.0, s->phi->n_lengths()));
    const double sigma_n = 0.2;
    CgOptions cg;
    cg.tolerance = 1e-13;
    Eigen::MatrixXd rhs(s->g.n_local(), 2);
    rhs.col(0) = s->data.y;
    rhs.col(1) = s->data.train.cwiseProduct(s->data.y.cwiseAbs2() + s->data.train);
    const TrainingSpace& space = *s->data.space;
    const CgResult result = batched_conjugate_gradient(gp_system(*s->phi, space, sigma_n), space.compress(rhs),
                                                       reproducible_column_dots(space.reducer()), cg);
    ASSERT_TRUE(result.converged);
    const Eigen::MatrixXd x = gather_canonical(s->g, space.expand(result.x)), b = gather_canonical(s->g, rhs);
    const auto train = where(gather_canonical(s->g, s->data.train).col(0));
    const Eigen::MatrixXd px = rows_of(dense_phi(dense_lengths(*s), s->phi->f()), train);
    Eigen::MatrixXd a = px * px.transpose();
    a.diagonal().array() += sigma_n * sigma_n;
    const Eigen::MatrixXd expected = a.ldlt().solve(rows_of(b, train));
    EXPECT_LE((rows_of(x, train) - expected).norm(), 1e-9 * expected.norm()) << partition;
  }
}

TEST(GrfGp, LmlAndGradientMatchFiniteDifferencesOfDenseLml) {
  auto s = make_setup(world(), "grid:5x6", "metis", 6);
  const int n_lengths = s->phi->n_lengths();
  const auto m = dense_lengths(*s);
  const Eigen::VectorXd y_all = gather_canonical(s->g, s->data.y).col(0);
  const auto train = where(gather_canonical(s->g, s->data.train).col(0));
  KernelSpec kernel = diffusion(1.4);
  const GpParameters parameters(kernel, GpLearn::hyper, n_lengths, 0.9, 0.3);
  std::vector<double> p = parameters.initial();
  s->phi->set_f(parameters.f(p));
  LmlOptions options;
  options.probes = 0;  // exact traces
  options.cg.tolerance = 1e-13;
  const LmlEstimate e = estimate_lml(*s->phi, s->data, parameters.sigma_n(p), options, 0);
  ASSERT_TRUE(e.converged);
  const double exact = dense_lml(dense_phi(m, parameters.f(p)), y_all, train, parameters.sigma_n(p));
  EXPECT_NEAR(e.lml, exact, 1e-8 * std::abs(exact));

  // d LML / d f_t against five-point central differences of the dense LML: (-L(x+2h) + 8 L(x+h) - 8 L(x-h) +
  // L(x-2h)) / 12h, truncation h^4 |L(5)| / 30, rounding about eps |LML| / h. (A three-point difference with
  // h = 1e-5 has truncation h^2 |L(3)| / 6, which for the long-step coefficients of some walk draws, whose third
  // derivatives reach 1e7, is itself at the 1e-6 tolerance.)
  const double h = 1e-4;
  const auto five_point = [h](auto&& lml_at) {
    return (-lml_at(2 * h) + 8 * lml_at(h) - 8 * lml_at(-h) + lml_at(-2 * h)) / (12 * h);
  };
  const std::vector<double> f = parameters.f(p);
  for (int t = 0; t < n_lengths; ++t) {
    const double fd = five_point([&](double step) {
      std::vector<double> moved = f;
      moved[static_cast<size_t>(t)] += step;
      return dense_lml(dense_phi(m, moved), y_all, train, 0.3);
    });
    EXPECT_NEAR(e.grad_f(t), fd, 1e-6 * (1 + std::abs(fd))) << "t = " << t;
  }
  // Through the parameterisation: (log sigma_f, log beta, log sigma_n).
  const Eigen::VectorXd g = parameter_gradient(parameters, p, e);
  for (size_t j = 0; j < p.size(); ++j) {
    const double fd = five_point([&](double step) {
      std::vector<double> moved = p;
      moved[j] += step;
      return dense_lml(dense_phi(m, parameters.f(moved)), y_all, train, parameters.sigma_n(moved));
    });
    EXPECT_NEAR(g(static_cast<Eigen::Index>(j)), fd, 1e-6 * (1 + std::abs(fd))) << parameters.names()[j];
  }
}

TEST(GrfGp, PosteriorMeanAndExactVarianceMatchDenseFormulaWithTheSamePhi) {
  auto s = make_setup(world(), "grid:6x7", "metis", 8);
  s->phi->set_f(scaled_diffusion_f(1.1, 2.0, s->phi->n_lengths()));
  const double sigma_n = 0.25;
  GpPredictionOptions options;
  options.samples = 3;
  options.exact_variance = true;
  options.cg.tolerance = 1e-13;
  const GpPrediction pred = predict_gp(*s->phi, s->data, sigma_n, s->test, options);
  const Eigen::MatrixXd phi = dense_phi(dense_lengths(*s), s->phi->f());
  const Eigen::MatrixXd k = phi * phi.transpose();
  const auto train = where(gather_canonical(s->g, s->data.train).col(0));
  const auto test = where(gather_canonical(s->g, s->test).col(0));
  const Eigen::VectorXd y = rows_of(gather_canonical(s->g, s->data.y), train).col(0);
  Eigen::MatrixXd a = rows_of(rows_of(k, train).transpose(), train);
  a.diagonal().array() += sigma_n * sigma_n;
  const Eigen::MatrixXd k_all_x = rows_of(k, train).transpose();  // N x n
  const Eigen::VectorXd mean = k_all_x * a.ldlt().solve(y);
  const Eigen::VectorXd got = gather_canonical(s->g, pred.mean).col(0);
  EXPECT_LE((got - mean).cwiseAbs().maxCoeff(), 1e-8 * mean.cwiseAbs().maxCoeff());
  const Eigen::VectorXd variance = gather_canonical(s->g, pred.exact_variance).col(0);
  for (auto j : test) {
    const Eigen::VectorXd kx = k_all_x.row(j).transpose();
    const double expected = k(j, j) - kx.dot(a.ldlt().solve(kx));
    EXPECT_NEAR(variance(j), expected, 1e-8 * k(j, j)) << j;
  }
}

TEST(GrfGp, PathwiseSamplesHaveThePosteriorCovariance) {
  auto s = make_setup(world(), "grid:4x5", "block", 8);
  s->phi->set_f(scaled_diffusion_f(1.0, 1.5, s->phi->n_lengths()));
  const double sigma_n = 0.3;
  GpPredictionOptions options;
  options.samples = 4000;
  options.cg.tolerance = 1e-12;
  const GpPrediction pred = predict_gp(*s->phi, s->data, sigma_n, s->test, options);
  const Eigen::MatrixXd phi = dense_phi(dense_lengths(*s), s->phi->f());
  const Eigen::MatrixXd k = phi * phi.transpose();
  const auto train = where(gather_canonical(s->g, s->data.train).col(0));
  const Eigen::VectorXd y = rows_of(gather_canonical(s->g, s->data.y), train).col(0);
  const Eigen::MatrixXd kx = rows_of(k, train);  // n x N
  Eigen::MatrixXd a = rows_of(kx.transpose(), train);
  a.diagonal().array() += sigma_n * sigma_n;
  const Eigen::VectorXd mean = kx.transpose() * a.ldlt().solve(y);
  const Eigen::MatrixXd cov = k - kx.transpose() * a.ldlt().solve(kx);
  const Eigen::MatrixXd samples = gather_canonical(s->g, pred.samples);  // N x S
  const Eigen::MatrixXd centred = samples.colwise() - mean;
  const double count = static_cast<double>(options.samples);
  const Eigen::MatrixXd empirical = centred * centred.transpose() / count;
  // With the exact mean, each entry of the empirical covariance is a mean of S iid products with variance
  // (S_ii S_jj + S_ij^2) (Gaussian fourth moments). 5.5 standard errors: two-sided normal tail 3.8e-8 per entry,
  // at most 210 entries here, so the test fails by chance with probability < 1e-5 (CLT at S = 4000).
  const Eigen::Index n = cov.rows();
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = i; j < n; ++j) {
      const double se = std::sqrt((cov(i, i) * cov(j, j) + cov(i, j) * cov(i, j)) / count);
      EXPECT_LE(std::abs(empirical(i, j) - cov(i, j)), 5.5 * se + 1e-12) << i << "," << j;
    }
}

TEST(GrfGp, LearningRecoversHyperparametersOfDataFromAKnownGp) {
  // Data drawn from the GRF-GP itself (well-specified) with theta* = (sigma_f 1.5, beta 2, sigma_n 0.3) at all
  // nodes of a 12 x 12 grid. The tolerance comes from the Fisher information of the dense model at theta*:
  // each log-parameter must lie within 4 asymptotic standard errors (+ 0.05 for Adam's last steps and probe
  // noise) of the truth.
  auto s = make_setup(world(), "grid:12x12", "metis", 16, true);
  const int n_lengths = s->phi->n_lengths();
  const KernelSpec kernel = diffusion(2.0);
  const GpParameters truth(kernel, GpLearn::hyper, n_lengths, 1.5, 0.3);
  const auto m = dense_lengths(*s);
  const Eigen::MatrixXd phi_true = dense_phi(m, truth.f(truth.initial()));
  const Eigen::Index n = phi_true.rows();
  Eigen::MatrixXd cov = phi_true * phi_true.transpose();
  cov.diagonal().array() += 0.09;
  std::mt19937_64 rng(2024);
  std::normal_distribution<double> normal;
  Eigen::VectorXd z(n);
  for (Eigen::Index i = 0; i < n; ++i) z(i) = normal(rng);
  const Eigen::VectorXd y_canonical = cov.llt().matrixL() * z;
  for (std::int64_t i = 0; i < s->g.n_local(); ++i) s->data.y(i) = y_canonical(s->g.canonical_index[static_cast<size_t>(i)]);

  const GpParameters start(diffusion(1.0), GpLearn::hyper, n_lengths, 1.0, 1.0);
  AdamSchedule schedule;
  schedule.iterations = 80;
  schedule.learning_rate = 0.08;
  LmlOptions options;
  options.probes = 16;
  options.cg.tolerance = 1e-6;
  LearningTrace trace;
  const std::vector<double> p = learn_gp(*s->phi, s->data, start, options, schedule, quiet_log(), trace);

  // Fisher information I_jk = 1/2 tr(A^-1 dA_j A^-1 dA_k) at theta*, dense.
  const std::vector<double> p_true = truth.initial();
  const Eigen::MatrixXd jac = truth.f_jacobian(p_true);
  Eigen::MatrixXd a_inv = cov.inverse();
  std::vector<Eigen::MatrixXd> da;
  for (int j = 0; j < 2; ++j) {
    Eigen::MatrixXd dphi = Eigen::MatrixXd::Zero(n, n);
    for (int t = 0; t < n_lengths; ++t) dphi += jac(t, j) * m[static_cast<size_t>(t)];
    da.push_back(dphi * phi_true.transpose() + phi_true * dphi.transpose());
  }
  da.push_back(2 * 0.09 * Eigen::MatrixXd::Identity(n, n));
  Eigen::Matrix3d fisher;
  for (int j = 0; j < 3; ++j)
    for (int k = 0; k < 3; ++k) fisher(j, k) = 0.5 * (a_inv * da[static_cast<size_t>(j)] * a_inv * da[static_cast<size_t>(k)]).trace();
  const Eigen::Vector3d se = fisher.inverse().diagonal().cwiseSqrt();
  for (int j = 0; j < 3; ++j)
    EXPECT_NEAR(p[static_cast<size_t>(j)], p_true[static_cast<size_t>(j)], 4 * se(j) + 0.05)
        << start.names()[static_cast<size_t>(j)] << " standard error " << se(j);
  // The LML estimate rose along the way.
  EXPECT_GT(trace.lml.back(), trace.lml.front());
}

TEST(GrfGp, ResultsAreBitwiseTheSameOnOneRankAndOnAll) {
  // All ranks with METIS against rank 0 alone (MPI_COMM_SELF, block): LML estimate, gradient, mean, samples.
  // All ranks restrict the operator to the training rows, rank 0 alone keeps the whole of Phi as S: the
  // restriction drops only terms that are exactly zero, so it changes no bit either.
  struct Outcome {
    double lml = 0;
    Eigen::VectorXd grad;
    Eigen::MatrixXd mean_and_samples;
  };
  auto run = [](const Communicator& comm, const std::string& partition, Subset subset) {
    auto s = make_setup(comm, "grid:9x7", partition, 6, false, subset);
    s->phi->set_f(scaled_diffusion_f(1.2, 1.3, s->phi->n_lengths()));
    LmlOptions options;
    options.probes = 5;
    const LmlEstimate e = estimate_lml(*s->phi, s->data, 0.2, options, 3);
    GpPredictionOptions po;
    po.samples = 4;
    const GpPrediction pred = predict_gp(*s->phi, s->data, 0.2, s->test, po);
    Eigen::MatrixXd both(s->g.n_local(), 5);
    both.col(0) = pred.mean;
    both.rightCols(4) = pred.samples;
    return Outcome{e.lml, e.grad_f, gather_canonical(s->g, both)};
  };
  const Outcome all = run(world(), "metis", Subset::training);
  Outcome alone;
  if (world().is_root()) {
    const Communicator self(MPI_COMM_SELF);
    alone = run(self, "block", Subset::all);
  }
  std::vector<double> packed;
  if (world().is_root()) {
    packed.push_back(alone.lml);
    packed.insert(packed.end(), alone.grad.data(), alone.grad.data() + alone.grad.size());
    packed.insert(packed.end(), alone.mean_and_samples.data(), alone.mean_and_samples.data() + alone.mean_and_samples.size());
  }
  world().broadcast(packed);
  ASSERT_EQ(packed.size(), 1 + static_cast<size_t>(all.grad.size() + all.mean_and_samples.size()));
  EXPECT_EQ(packed[0], all.lml);
  for (Eigen::Index t = 0; t < all.grad.size(); ++t) EXPECT_EQ(packed[1 + static_cast<size_t>(t)], all.grad(t)) << t;
  const double* m = packed.data() + 1 + all.grad.size();
  for (Eigen::Index k = 0; k < all.mean_and_samples.size(); ++k) ASSERT_EQ(m[k], all.mean_and_samples.data()[k]) << k;
}
