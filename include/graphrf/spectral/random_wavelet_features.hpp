#pragma once
// Random wavelet features (de Bassompierre, Delvenne, Jacques 2026, "Random wavelet features for graph kernel
// machines", Alg. 1): a node embedding Phi with Phi^T Phi ~ h(L) for the normalised Laplacian L and a positive
// kernel function h on its spectrum.
//   1. lambda_K by eigencount dichotomy (spectrum_estimate.hpp);
//   2. c_chi: Jackson-Chebyshev low-pass 1_[0, lambda_K] of degree M_chi;
//   3. G ~ N(0, 1)^{N x (K + r)}, entry (node, c) keyed by (seed, node's original id, c);
//   4. Q = orth(p_chi(L) G) by CholeskyQR2 (tall_skinny_qr.hpp), then q - 1 more passes Q = orth(p_chi(L) Q)
//      (subspace iteration; q = 1 is the paper's algorithm, see auto_subspace_iterations);
//   5. c_h: Chebyshev interpolant of sqrt(h) of degree M_h;
//   6. Phi^T = p_h(L) Q: row i (this rank's rows) is node i's feature vector, of length K + r.
// Cost: (q M_chi + M_h) (K + r) products with L plus the lambda_K search, and O(N (K + r)^2) for the QR.
// Results are the same bits at any rank count and partition, provided op.apply computes each row in a fixed
// order (see distributed_operator.hpp): random draws are keyed by original ids and global sums are reproducible.
#include <Eigen/Dense>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "graphrf/mpi/distributed_operator.hpp"
#include "graphrf/spectral/spectrum_estimate.hpp"

namespace graphrf {

struct WaveletOptions {
  std::int64_t rank = 0;          // K (--embedding-dim), >= 1
  std::int64_t oversample = -1;   // r (--oversample), >= 2; -1: max(K / 10, 15)
  int degree_chi = 60;            // M_chi (--degree-chi): degree of the low-pass p_chi, >= 1
  int degree_h = 30;              // M_h (--degree-h): degree of p_h ~ sqrt(h), >= 1
  // q (--subspace-iterations): passes of the low-pass, Q = orth(p_chi(L) Q_prev) q times; -1: auto
  // (auto_subspace_iterations), >= 1 otherwise.
  int subspace_iterations = -1;
  int eigencount_order = 50;      // degree of the eigencount filters (--eigencount-order), >= 1
  double dichotomy_eps = 1e-2;    // relative width at which the lambda_K search stops (--dichotomy-eps), in (0, 1)
  double count_tolerance = 2.0;   // z of the lambda_K search (--count-tolerance), >= 0; 0: exact round(count) == K
  int n_probe = -1;               // probe columns of the eigencount (--probes); -1: 2 round(ln N)
  std::uint64_t seed = 0;         // --seed
  double lambda_max = 2.0;        // spectrum bound: 2 for the normalised Laplacian; <= 0: estimate by Lanczos
  // Progress lines for rank 0's log at every phase and lambda_K step (optional).
  std::function<void(const std::string&)> progress;
};

struct WaveletResult {
  Eigen::MatrixXd embedding_local;  // n_local x (K + r): this rank's rows of Phi^T = p_h(L) Q
  double lambda_k = 0;              // the estimated K-th eigenvalue (cut-off of p_chi)
  double lambda_max = 0;            // the interval [0, lambda_max] the polynomials live on
  std::int64_t rank = 0;            // K
  std::int64_t oversample = 0;      // r after defaults
  LambdaKEstimate dichotomy;        // details of the lambda_K search (count, iterations, probes)
  std::vector<double> coeff_chi;    // Jackson-Chebyshev low-pass on [0, lambda_k], c_0 doubled
  std::vector<double> coeff_h;      // Chebyshev interpolant of sqrt(h), c_0 doubled
  int subspace_iterations = 0;      // q actually run
  int qr_passes = 0;                // CholeskyQR passes (2, or 3 if the first was shifted or inaccurate)
  bool qr_shifted = false;
  double lambda_k_seconds = 0;      // this rank's time in the lambda_K search (moments and dichotomy)
  double seconds = 0;               // this rank's time for the whole embedding
};

// Fills the defaults (oversample, n_probe) and checks the options for a graph of n_global nodes. Throws
// InputError naming the option:
//  - K >= 1, r >= 2 (the range-finder bound has sqrt(K / (r - 1))), degrees and eigencount order >= 1,
//    0 < dichotomy eps < 1, count tolerance >= 0, n_probe >= 1;
//  - K + r < N. Policy: refuse rather than fall back to an exact eigendecomposition. With K + r >= N the
//    range finder would span the whole space (no low-rank saving), an exact fallback would need the full
//    N x N operator on one rank, and a silent change of method would surprise the caller; the message
//    suggests a smaller --embedding-dim or --oversample instead.
WaveletOptions resolve_wavelet_options(std::int64_t n_global, const WaveletOptions& options);

// Checks that h is finite and > 0 on [0, lambda_max] (a fine grid plus the Chebyshev nodes where sqrt(h) is
// evaluated for a degree-`degree_h` interpolant). Throws InputError, e.g.
// "--kernel: h(lambda) must be > 0 on [0, 2] for random wavelet features (h(1.3) = -0.2)".
void check_wavelet_kernel(const std::function<double(double)>& h, double lambda_max, int degree_h);

// The number of low-pass passes when --subspace-iterations is -1. The range finder captures the span of the K
// smallest eigenvectors well only when p_chi is small, relative to its passband, on everything above lambda_K.
// On a spectrum with a gap after lambda_K (rings of cliques, small grids) one pass does that. On an expander
// lambda_K sits at the edge of the bulk, where thousands of eigenvalues lie within the filter's transition
// width (about lambda_max pi / M_chi): one pass leaves a random K + r dimensional mixture of them and the
// eigenvectors below the edge are only partly captured (kernel error 2.5-3.6x the best rank-K error on
// random graphs of mean degree 10, N = 10^4 .. 10^5). Each further pass squares the ratio p_chi(edge) /
// p_chi(passband), as the power iterations of Halko, Martinsson, Tropp (2011, Alg. 4.4) do; two passes
// bring the error within about 1.2x of the optimum there, three within 1.05x. The extra passes are useless
// when h barely changes over [0, lambda_K]: with Phi Phi^T = p_h Q Q^T p_h, 0 <= h(L) - Phi Phi^T <= h(L), so
// any capture has an error at most h_max = max h on [0, lambda_K], and the best rank-K error is about
// h(lambda_K). So: 1 pass when h_max <= 1.1 h(lambda_K) (e.g. diffusion on a 10^6-node grid, where every
// method's error is ~1), otherwise 2.
int auto_subspace_iterations(const std::function<double(double)>& h, double lambda_k);

// Alg. 1 end to end. Collective. `laplacian` is the normalised Laplacian (or another symmetric PSD operator
// with options.lambda_max set or estimated). Bad options or kernels throw the same collective InputError on
// every rank; so does a filtered block p_chi(L) G that cannot be orthonormalised (a zero or non-finite column).
WaveletResult random_wavelet_features(const DistributedOperator& laplacian, const std::function<double(double)>& h,
                                      const WaveletOptions& options);

}  // namespace graphrf
