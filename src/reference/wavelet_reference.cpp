#include "graphrf/reference/wavelet_reference.hpp"

#include <algorithm>
#include <cmath>

#include "graphrf/core/timer.hpp"
#include "graphrf/grf/dense_gather.hpp"
#include "graphrf/reference/sampled_embedding_reference.hpp"

namespace graphrf {

namespace {

// Relative errors of Phi Phi^T against h(L); the embedding has K + r columns, so it is compared with both
// the best rank-K and the best rank-(K + r) approximations of h(L).
struct WaveletErrors {
  double spectral = 0, frobenius = 0, best_spectral = 0, best_frobenius = 0, best_spectral_kr = 0, best_frobenius_kr = 0;
};

// Exact h(L) and the best rank-K approximation from a dense eigendecomposition on rank 0.
WaveletErrors dense_errors(const DistributedGraph& g, const WaveletResult& result, const WaveletRunOptions& options) {
  const Communicator& comm = *g.comm;
  const auto& h = options.kernel;
  const bool combinatorial = options.laplacian == WaveletLaplacian::combinatorial;
  WaveletErrors e;
  const Eigen::MatrixXd phi = gather_dense_block(comm, result.embedding_local, g.n_global());
  WalkOptions weights;  // normalised W, or A itself (raw, scale 1) for D - A
  if (combinatorial) weights.weights = WeightMode::raw;
  const Eigen::MatrixXd w = gather_dense_w(g, weights);
  if (comm.is_root()) {
    const Eigen::MatrixXd lap = combinatorial ? Eigen::MatrixXd(Eigen::MatrixXd(w.rowwise().sum().asDiagonal()) - w)
                                              : Eigen::MatrixXd(Eigen::MatrixXd::Identity(w.rows(), w.cols()) - w);
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(lap);
    Eigen::VectorXd hv = eig.eigenvalues().unaryExpr([&](double l) { return h(std::max(0.0, l)); });
    const Eigen::MatrixXd exact = eig.eigenvectors() * hv.asDiagonal() * eig.eigenvectors().transpose();
    const Eigen::MatrixXd diff = phi * phi.transpose() - exact;
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> diff_eig(diff, Eigen::EigenvaluesOnly);
    std::vector<double> sorted(hv.data(), hv.data() + hv.size());
    std::sort(sorted.rbegin(), sorted.rend());
    double all2 = 0;
    for (const double x : sorted) all2 += x * x;
    // Best rank-k errors of h(L) (Eckart-Young): the (k+1)-th eigenvalue, and the norm of the tail.
    const auto best = [&](std::int64_t k, double& spectral, double& frobenius) {
      double tail2 = 0;
      for (size_t j = static_cast<size_t>(std::min<std::int64_t>(k, static_cast<std::int64_t>(sorted.size()))); j < sorted.size(); ++j)
        tail2 += sorted[j] * sorted[j];
      spectral = static_cast<std::int64_t>(sorted.size()) > k ? sorted[static_cast<size_t>(k)] / sorted.front() : 0.0;
      frobenius = std::sqrt(tail2 / all2);
    };
    e.spectral = diff_eig.eigenvalues().cwiseAbs().maxCoeff() / sorted.front();
    e.frobenius = diff.norm() / exact.norm();
    best(result.rank, e.best_spectral, e.best_frobenius);
    best(result.rank + result.oversample, e.best_spectral_kr, e.best_frobenius_kr);
  }
  comm.broadcast(e);
  return e;
}

}  // namespace

Report wavelet_reference(const DistributedGraph& g, const WaveletRunResult& run, const WaveletRunOptions& options,
                         const ReferenceOptions& reference, const Log& log) {
  const Communicator& comm = *g.comm;
  const WaveletResult& result = run.features;
  Report report;
  log.info("plan        reference " + reference_cost(reference, g.n_global()));
  if (!dense_reference(reference, g.n_global())) {
    Timer reference_timer;
    const DistributedOperator laplacian = wavelet_laplacian_operator(g, options.laplacian);
    const auto sampled = sampled_embedding_error(g, laplacian, result.lambda_max, result.embedding_local, options.kernel,
                                                 reference.samples, options.features.seed);
    const SampledError& e = sampled.frobenius;
    log.info("reference   relative Frobenius error of Phi Phi^T (" + std::to_string(result.rank + result.oversample) +
             " columns: K + r) vs h(L): " + fmt(e.value, 6) + " +- " + fmt(e.standard_error, 6) +
             " (standard error; exact rows of h(L) for " + std::to_string(e.samples) + " of " + std::to_string(g.n_global()) +
             " nodes by Chebyshev degree " + std::to_string(sampled.degree) + ", " + fmt(comm.max(reference_timer.seconds()), 2) + " s)");
    return report.significant("frobenius_error", e.value, {}, {{"/embedding", "relative_frobenius_error"}})
        .significant("frobenius_error_se", e.standard_error, {}, {{"/embedding", "relative_frobenius_error_standard_error"}})
        .count("reference_samples", e.samples, {}, {{"/embedding", "reference_samples"}});
  }
  const WaveletErrors e = dense_errors(g, result, options);
  log.info("reference   relative error of Phi Phi^T (" + std::to_string(result.rank + result.oversample) +
           " columns: K + r) vs h(L): spectral " + fmt(e.spectral, 6) + " (best rank-K " + fmt(e.best_spectral, 6) +
           ", best rank-(K + r) " + fmt(e.best_spectral_kr, 6) + "), Frobenius " + fmt(e.frobenius, 6) + " (best rank-K " +
           fmt(e.best_frobenius, 6) + ", best rank-(K + r) " + fmt(e.best_frobenius_kr, 6) + ")");
  return report.significant("spectral_error", e.spectral, {}, {{"/embedding", "relative_spectral_error"}})
      .significant("best_spectral_error", e.best_spectral, {}, {{"/embedding", "best_rank_k_spectral_error"}})
      .significant("frobenius_error", e.frobenius, {}, {{"/embedding", "relative_frobenius_error"}})
      .significant("best_frobenius_error", e.best_frobenius, {}, {{"/embedding", "best_rank_k_frobenius_error"}})
      .significant("best_kr_spectral_error", e.best_spectral_kr, {}, {{"/embedding", "best_rank_k_plus_r_spectral_error"}})
      .significant("best_kr_frobenius_error", e.best_frobenius_kr, {}, {{"/embedding", "best_rank_k_plus_r_frobenius_error"}});
}

}  // namespace graphrf
