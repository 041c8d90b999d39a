// Random wavelet features end to end on one rank: kernel error against the exact h(L) and the best rank-K
// error, the Prop. 1 bound of de Bassompierre, Delvenne, Jacques 2026 ("Random wavelet features for graph
// kernel machines"), the Lanczos path for other operators, determinism, and bad input.
#include "graphrf/spectral/random_wavelet_features.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "graphrf/spectral/chebyshev.hpp"
#include "wavelet_test_graphs.hpp"

using namespace graphrf;
using namespace graphrf::testing;

namespace {
double spectral_norm(const Eigen::MatrixXd& symmetric) {
  return Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(symmetric, Eigen::EigenvaluesOnly).eigenvalues().cwiseAbs().maxCoeff();
}

// A small operator with its exact spectrum and exact h(L), for errors against the dense kernel.
struct DenseCase {
  Eigen::MatrixXd l;
  Eigen::VectorXd ev;     // ascending
  Eigen::MatrixXd exact;  // h(L)
};
DenseCase dense_case(const Eigen::MatrixXd& laplacian, const std::function<double(double)>& h) {
  return {laplacian, Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(laplacian).eigenvalues(), spectral_function(laplacian, h)};
}
// ||h(L) - Phi Phi^T||_2 for an embedding (rows: nodes).
double kernel_error(const DenseCase& c, const Eigen::MatrixXd& embedding) {
  return spectral_norm(c.exact - embedding * embedding.transpose());
}

std::string message_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no InputError)";
}
}  // namespace

TEST(RandomWaveletFeatures, KernelErrorCloseToBestRankKOnAWellSeparatedSpectrum) {
  // Rings of cliques: K = number of cliques, lambda_K ~ 0.01-0.04, lambda_{K+1} = 1. The diffusion kernel
  // h = exp(-5 lambda) has ||h(L)|| = 1 and best rank-K error h(lambda_{K+1}) = 6.7e-3.
  Communicator self(MPI_COMM_SELF);
  auto h = [](double x) { return std::exp(-5.0 * x); };
  struct Case {
    int cliques, size;
  };
  for (auto [cliques, size] : {Case{10, 20}, Case{30, 10}}) {
    const DenseCase c = dense_case(normalised_laplacian(ring_of_cliques(cliques, size)), h);
    const Eigen::MatrixXd& l = c.l;
    const Eigen::VectorXd& ev = c.ev;
    const auto op = serial_operator(self, l);
    const int k = cliques;
    const double best = h(ev(k));
    for (std::uint64_t seed = 0; seed < 6; ++seed) {
      WaveletOptions o;
      o.rank = k;
      o.seed = seed;
      const auto res = random_wavelet_features(op, h, o);
      ASSERT_EQ(res.embedding_local.rows(), l.rows());
      ASSERT_EQ(res.embedding_local.cols(), k + 15);  // r = max(K/10, 15)
      EXPECT_EQ(res.coeff_chi.size(), 61u);
      EXPECT_EQ(res.coeff_h.size(), 31u);
      const double err = kernel_error(c, res.embedding_local);
      EXPECT_LE(err, 1.5 * best) << cliques << " " << seed << " lambda_K " << res.lambda_k;
      // de Bassompierre et al. 2026, Prop. 1: E <= E_R^2 + E_P, for the range finder on p(L) G. With q passes
      // Q spans p_chi(L)^q G (the QR between passes does not change the span), so p = p_chi^q.
      //   E[E_R] <= h^{1/2}(l_{K+1}) + 2 sqrt(K/(r-1)) p(l_{K+1}) + 2e sqrt(K+r)/r (sum_{j>K} p(l_j)^2)^{1/2},
      //   E_P <= 2 eps_h + eps_h^2.
      const double r = static_cast<double>(res.oversample);
      const auto p = [&](double x) { return std::pow(chebyshev_eval(res.coeff_chi, 2.0, x), res.subspace_iterations); };
      double tail = 0, eps_h = 0;
      for (Eigen::Index j = 0; j < ev.size(); ++j) {
        if (j >= k) tail += std::pow(p(ev(j)), 2);
        eps_h = std::max(eps_h, std::abs(std::sqrt(h(ev(j))) - chebyshev_eval(res.coeff_h, 2.0, ev(j))));
      }
      const double bound_r = std::sqrt(h(ev(k))) + 2.0 * std::sqrt(k / (r - 1.0)) * p(ev(k)) +
                             2.0 * std::exp(1.0) * std::sqrt(k + r) / r * std::sqrt(tail);
      EXPECT_LE(err, bound_r * bound_r + 2.0 * eps_h + eps_h * eps_h) << cliques << " " << seed;
    }
  }
}

TEST(RandomWaveletFeatures, DenseSpectrumStillBeatsBestRankKWithOversampling) {
  // 20 x 20 grid, K = 30: no gap, but the K + r = 45 columns do better than the best rank-K error.
  Communicator self(MPI_COMM_SELF);
  auto h = [](double x) { return std::exp(-5.0 * x); };
  const Eigen::MatrixXd l = normalised_laplacian(grid_2d(20, 20));
  const Eigen::VectorXd ev = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(l).eigenvalues();
  WaveletOptions o;
  o.rank = 30;
  o.seed = 3;
  const auto res = random_wavelet_features(serial_operator(self, l), h, o);
  const double err = spectral_norm(spectral_function(l, h) - res.embedding_local * res.embedding_local.transpose());
  EXPECT_LE(err, h(ev(30)));
}

TEST(RandomWaveletFeatures, SecondLowPassPassCapturesTheBottomOfAGaplessSpectrum) {
  // An expander (ring with chords, mean degree 10, N = 1200): lambda_2 .. lambda_{K+1} sit at the edge of the
  // bulk, hundreds of eigenvalues lie within the degree-60 low-pass' transition, and one pass captures a random
  // mixture of them: 1.8-2.8x the best rank-K error over these seeds (and over other graph seeds). The
  // automatic rule runs two passes here (h = exp(-5 lambda) varies by far more than 10% on [0, lambda_K]),
  // which measured 1.11-1.34x; the bound asserted is the 1.5x the wavelet benchmark is held to. Everything is
  // seeded, so the outcome is fixed; the one-pass check shows what the second pass is for.
  Communicator self(MPI_COMM_SELF);
  auto h = [](double x) { return std::exp(-5.0 * x); };
  const DenseCase c = dense_case(normalised_laplacian(ring_with_chords(1200, 10.0, 1)), h);
  const auto op = serial_operator(self, c.l);
  const int k = 32;
  const double best = h(c.ev(k));
  for (std::uint64_t seed = 0; seed < 3; ++seed) {
    WaveletOptions o;
    o.rank = k;
    o.seed = seed;
    const auto automatic = random_wavelet_features(op, h, o);
    EXPECT_EQ(automatic.subspace_iterations, 2);
    EXPECT_LE(kernel_error(c, automatic.embedding_local), 1.5 * best)
        << "seed " << seed;
    o.subspace_iterations = 1;
    const auto one_pass = random_wavelet_features(op, h, o);
    EXPECT_GT(kernel_error(c, one_pass.embedding_local), 1.5 * best)
        << "seed " << seed;
  }
}

TEST(RandomWaveletFeatures, AutomaticPassesFollowTheKernelsVariationBelowLambdaK) {
  // One pass when no capture can be more than 1.1x off (h nearly constant on [0, lambda_K]), two otherwise.
  EXPECT_EQ(auto_subspace_iterations([](double x) { return std::exp(-5.0 * x); }, 0.01), 1);   // 1.05
  EXPECT_EQ(auto_subspace_iterations([](double x) { return std::exp(-5.0 * x); }, 0.03), 2);   // 1.16
  EXPECT_EQ(auto_subspace_iterations([](double x) { return 1.0 / (1.0 + x); }, 0.5), 2);
  // h need not be monotone: the largest value on [0, lambda_K] counts, not h(0).
  EXPECT_EQ(auto_subspace_iterations([](double x) { return std::exp(-50.0 * (x - 0.2) * (x - 0.2)); }, 0.3), 2);  // h(0) < h(0.3)
}

TEST(RandomWaveletFeatures, EstimatesLambdaMaxForOtherOperators) {
  // 3 L with lambda_max estimated by Lanczos and the kernel h(3 lambda): same quality as on L.
  Communicator self(MPI_COMM_SELF);
  const Eigen::MatrixXd l3 = 3.0 * normalised_laplacian(ring_of_cliques(10, 20));
  auto h = [](double x) { return std::exp(-5.0 / 3.0 * x); };
  WaveletOptions o;
  o.rank = 10;
  o.lambda_max = 0.0;
  const auto res = random_wavelet_features(serial_operator(self, l3), h, o);
  EXPECT_GE(res.lambda_max, 3.3);  // 3 * 1.1
  EXPECT_LE(res.lambda_max, 3.3 * 1.05);
  const double err = spectral_norm(spectral_function(l3, h) - res.embedding_local * res.embedding_local.transpose());
  EXPECT_LE(err, 1.5 * std::exp(-5.0));
}

TEST(RandomWaveletFeatures, SameSeedSameBitsOtherSeedOtherDraws) {
  Communicator self(MPI_COMM_SELF);
  const auto op = serial_operator(self, normalised_laplacian(grid_2d(12, 12)));
  auto h = [](double x) { return 1.0 / (1.0 + 4.0 * x); };
  WaveletOptions o;
  o.rank = 12;
  o.seed = 77;
  const auto a = random_wavelet_features(op, h, o), b = random_wavelet_features(op, h, o);
  EXPECT_EQ(a.embedding_local, b.embedding_local);
  o.seed = 78;
  const auto c = random_wavelet_features(op, h, o);
  EXPECT_GT((a.embedding_local - c.embedding_local).cwiseAbs().maxCoeff(), 1e-3);
}

TEST(RandomWaveletFeatures, BadInputThrowsInputErrorNamingTheOption) {
  Communicator self(MPI_COMM_SELF);
  const auto op = serial_operator(self, normalised_laplacian(grid_2d(6, 6)));  // N = 36
  auto h = [](double x) { return std::exp(-x); };
  auto run = [&](WaveletOptions o, std::function<double(double)> kernel) {
    return message_of([&] { random_wavelet_features(op, kernel, o); });
  };
  WaveletOptions ok;
  ok.rank = 4;
  auto with = [&](auto edit) {
    WaveletOptions o = ok;
    edit(o);
    return run(o, h);
  };
  EXPECT_EQ(run(ok, [](double x) { return x < 1.3 ? 1.0 : -0.2; }),
            "wavelet.kernel: h(lambda) must be > 0 on [0, 2] for random wavelet features (h(1.3) = -0.2)");
  EXPECT_EQ(run(ok, [](double x) { return x; }).rfind("wavelet.kernel: h(lambda) must be > 0 on [0, 2]", 0), 0u);  // h(0) = 0
  EXPECT_EQ(run(ok, [](double) { return std::nan(""); }).rfind("wavelet.kernel:", 0), 0u);
  EXPECT_EQ(with([](WaveletOptions& o) { o.rank = 0; }).rfind("wavelet.rank:", 0), 0u);
  EXPECT_EQ(with([](WaveletOptions& o) { o.oversample = 1; }).rfind("wavelet.oversample:", 0), 0u);
  EXPECT_EQ(with([](WaveletOptions& o) { o.degree_chi = 0; }).rfind("wavelet.degree_chi:", 0), 0u);
  EXPECT_EQ(with([](WaveletOptions& o) { o.degree_h = 0; }).rfind("wavelet.degree_h:", 0), 0u);
  EXPECT_EQ(with([](WaveletOptions& o) { o.subspace_iterations = 0; }).rfind("wavelet.subspace_iterations:", 0), 0u);
  EXPECT_EQ(with([](WaveletOptions& o) { o.subspace_iterations = -1; }), "(no InputError)");
  EXPECT_EQ(with([](WaveletOptions& o) { o.eigencount_order = 0; }).rfind("wavelet.eigencount_order:", 0), 0u);
  EXPECT_EQ(with([](WaveletOptions& o) { o.dichotomy_eps = 1.0; }).rfind("wavelet.dichotomy_eps:", 0), 0u);
  EXPECT_EQ(with([](WaveletOptions& o) { o.count_tolerance = -1.0; }).rfind("wavelet.count_tolerance:", 0), 0u);
  EXPECT_EQ(with([](WaveletOptions& o) { o.n_probe = 0; }).rfind("wavelet.n_probe:", 0), 0u);
  // K + r >= N is refused (no silent switch to an exact method): 21 + 15 = 36 = N.
  const auto too_big = with([](WaveletOptions& o) { o.rank = 21; });
  EXPECT_EQ(too_big.rfind("wavelet.rank: random wavelet features need K + r < N, but K = 21 and r = 15", 0), 0u) << too_big;
  EXPECT_EQ(with([](WaveletOptions& o) { o.rank = 20; }), "(no InputError)");  // 20 + 15 = 35 < 36
}
