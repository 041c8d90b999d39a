// Random wavelet features (de Bassompierre, Delvenne, Jacques 2026, "Random wavelet features for graph kernel
// machines", Alg. 1), on a row-distributed operator. See random_wavelet_features.hpp.
#include "graphrf/spectral/random_wavelet_features.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <string>

#include "graphrf/spectral/chebyshev.hpp"
#include "graphrf/core/error.hpp"
#include "graphrf/core/option_error.hpp"
#include "graphrf/core/timer.hpp"
#include "graphrf/mpi/reproducible_sum.hpp"
#include "graphrf/spectral/tall_skinny_qr.hpp"

namespace graphrf {

WaveletOptions resolve_wavelet_options(std::int64_t n_global, const WaveletOptions& options) {
  WaveletOptions o = options;
  if (o.rank < 1) throw InputError("wavelet.rank: K must be >= 1 for random wavelet features (got " + std::to_string(o.rank) + ")");
  if (o.oversample == -1) o.oversample = std::max<std::int64_t>(o.rank / 10, 15);
  if (o.oversample < 2)
    throw InputError("wavelet.oversample: r must be >= 2 for random wavelet features, or -1 for max(K/10, 15) (got " +
                     std::to_string(o.oversample) + ")");
  if (o.degree_chi < 1)
    throw InputError("wavelet.degree_chi: the low-pass degree must be >= 1 (got " + std::to_string(o.degree_chi) + ")");
  if (o.subspace_iterations != -1 && o.subspace_iterations < 1)
    throw InputError("wavelet.subspace_iterations: the number of low-pass passes must be >= 1, or -1 for automatic (got " +
                     std::to_string(o.subspace_iterations) + ")");
  if (o.degree_h < 1)
    throw InputError("wavelet.degree_h: the kernel polynomial degree must be >= 1 (got " + std::to_string(o.degree_h) + ")");
  if (o.eigencount_order < 1)
    throw InputError("wavelet.eigencount_order: the eigencount filter degree must be >= 1 (got " +
                     std::to_string(o.eigencount_order) + ")");
  if (!(o.dichotomy_eps > 0.0 && o.dichotomy_eps < 1.0))
    throw InputError("wavelet.dichotomy_eps: must be in (0, 1) (got " + format_number(o.dichotomy_eps, 6) + ")");
  if (!(o.count_tolerance >= 0.0) || !std::isfinite(o.count_tolerance))
    throw InputError("wavelet.count_tolerance: must be >= 0 (got " + format_number(o.count_tolerance, 6) + ")");
  if (o.n_probe == -1) o.n_probe = default_probe_count(n_global);
  if (o.n_probe < 1)
    throw InputError("wavelet.n_probe: the eigencount needs >= 1 probe columns, or -1 for 2 round(ln N) (got " +
                     std::to_string(o.n_probe) + ")");
  if (!std::isfinite(o.lambda_max))
    throw InputError("wavelet.lambda_max: must be finite (got " + format_number(o.lambda_max, 6) + ")");
  if (o.rank + o.oversample >= n_global)
    throw InputError("wavelet.rank: random wavelet features need K + r < N, but K = " + std::to_string(o.rank) + " and r = " +
                     std::to_string(o.oversample) + " (wavelet.oversample) give " + std::to_string(o.rank + o.oversample) +
                     " >= N = " + std::to_string(n_global) +
                     "; use a smaller wavelet.rank or wavelet.oversample (a graph this small is better served by an exact kernel)");
  return o;
}

void check_wavelet_kernel(const std::function<double(double)>& h, double lambda_max, int degree_h) {
  if (!h) throw InputError("wavelet.kernel: no kernel function given for random wavelet features");
  auto check = [&](double x) {
    const double v = h(x);
    if (!(v > 0.0) || !std::isfinite(v))
      throw InputError("wavelet.kernel: h(lambda) must be > 0 on [0, " + format_number(lambda_max, 6) + "] for random wavelet features (h(" +
                       format_number(x, 6) + ") = " + format_number(v, 6) + ")");
  };
  constexpr int kGrid = 4000;
  for (int i = 0; i <= kGrid; ++i) check(lambda_max * i / kGrid);
  // The nodes where chebyshev_coefficients evaluates sqrt(h).
  const int ng = degree_h + 1;
  for (int n = 0; n < ng; ++n) check(lambda_max / 2 * (std::cos(std::numbers::pi * (n + 0.5) / ng) + 1.0));
}

int auto_subspace_iterations(const std::function<double(double)>& h, double lambda_k) {
  constexpr int kGrid = 200;
  double h_max = 0.0;
  for (int i = 0; i <= kGrid; ++i) h_max = std::max(h_max, h(lambda_k * i / kGrid));
  return h_max <= 1.1 * h(lambda_k) ? 1 : 2;
}

WaveletResult random_wavelet_features(const DistributedOperator& laplacian, const std::function<double(double)>& h,
                                      const WaveletOptions& options) {
  if (laplacian.comm == nullptr || !laplacian.apply)
    throw Error("random_wavelet_features: the operator has no communicator or no apply function");
  const Communicator& comm = *laplacian.comm;
  WaveletOptions o;
  collective_try(comm, [&] { o = resolve_wavelet_options(laplacian.n_global, options); });
  const RowBlockReducer sums(laplacian);

  const Timer timer;
  WaveletResult res;
  res.rank = o.rank;
  res.oversample = o.oversample;
  if (o.lambda_max > 0) {
    res.lambda_max = o.lambda_max;
  } else {
    LambdaMaxOptions lm;
    lm.seed = o.seed;
    res.lambda_max = estimate_lambda_max(laplacian, sums, lm);
  }
  collective_try(comm, [&] { check_wavelet_kernel(h, res.lambda_max, o.degree_h); });

  // 1-2. lambda_K and the low-pass p_chi ~ 1_[0, lambda_K].
  LambdaKOptions lk;
  lk.order = o.eigencount_order;
  lk.eps = o.dichotomy_eps;
  lk.count_tolerance = o.count_tolerance;
  lk.n_probe = o.n_probe;
  lk.seed = o.seed;
  lk.progress = o.progress;
  const auto say = [&](const std::string& line) {
    if (o.progress) o.progress(line);
  };
  say("lambda_K    from Chebyshev spectral moments of degree " + std::to_string(2 * o.eigencount_order));
  const Timer lambda_k_timer;
  res.dichotomy = estimate_lambda_k(laplacian, sums, res.lambda_max, o.rank, lk);
  res.lambda_k_seconds = lambda_k_timer.seconds();
  res.lambda_k = res.dichotomy.lambda_k;
  res.coeff_chi = jackson_chebyshev_coefficients(0.0, res.lambda_k, o.degree_chi, res.lambda_max);

  // 3-4. Range finder: Q = orth(p_chi(L) G), then Q = orth(p_chi(L) Q) q - 1 more times.
  res.subspace_iterations = o.subspace_iterations > 0 ? o.subspace_iterations : auto_subspace_iterations(h, res.lambda_k);
  const auto b = static_cast<Eigen::Index>(o.rank + o.oversample);
  Eigen::MatrixXd block = keyed_gaussian_block(laplacian.row_keys, b, o.seed, RngDomain::wavelet_gaussian);
  TallSkinnyQr qr;
  for (int pass = 1; pass <= res.subspace_iterations; ++pass) {
    say("filter      low-pass p_chi(L) " + std::string(pass == 1 ? "G" : "Q") + ": degree " + std::to_string(o.degree_chi) +
        ", " + std::to_string(b) + " columns, pass " + std::to_string(pass) + " of " + std::to_string(res.subspace_iterations));
    auto filtered = chebyshev_filter(laplacian, res.lambda_max, {res.coeff_chi}, block);
    say("qr          CholeskyQR2 of the filtered block");
    try {
      qr = tall_skinny_qr(sums, std::move(filtered[0]));
    } catch (const RankDeficientError& e) {
      // Numerically rank-deficient blocks are handled inside the QR; this is a zero or non-finite column (or no
      // convergence). The Gram matrices are the same bits on every rank, so every rank lands here together.
      throw InputError("wavelet.rank: could not orthonormalise the filtered block p_chi(L) G of K + r = " + std::to_string(b) +
                           " columns (lambda_K = " + format_number(res.lambda_k, 6) + "): " + e.what() +
                           "; check that the operator returns finite values, or lower wavelet.rank or wavelet.oversample",
                       /*collective=*/true);
    }
    if (pass < res.subspace_iterations) block = std::move(qr.q_local);
  }
  res.qr_passes = qr.passes;
  res.qr_shifted = qr.shifted;

  // 5-6. Embedding: Phi^T = p_h(L) Q with p_h ~ sqrt(h).
  res.coeff_h = chebyshev_coefficients([&](double x) { return std::sqrt(h(x)); }, o.degree_h, res.lambda_max);
  say("filter      embedding p_h(L) Q: degree " + std::to_string(o.degree_h));
  res.embedding_local = std::move(chebyshev_filter(laplacian, res.lambda_max, {res.coeff_h}, qr.q_local)[0]);
  res.seconds = timer.seconds();
  return res;
}

}  // namespace graphrf
