#pragma once
// Spectrum estimates for a symmetric positive semi-definite distributed operator:
//  - lambda_max by Lanczos (for operators other than the normalised Laplacian, whose lambda_max is 2);
//  - the eigencount estimator round(||p_lambda(L) R||_F^2) [Puy et al. 2018, "Random sampling of bandlimited
//    signals on graphs"; Di Napoli, Polizzi, Saad 2016, "Efficient estimation of eigenvalue counts in an
//    interval"];
//  - the dichotomy for lambda_K [Puy et al. 2018, Alg. 1; CSCbox estimate_lambda_k.m, the toolbox of
//    Tremblay et al. 2016, "Compressive spectral clustering"], run on counts computed from Chebyshev moments
//    (spectral_moments.hpp) instead of filtering the probes again at every step.
// Random blocks are drawn from counter-based streams keyed by (seed, row key, column), and every global sum
// goes through RowBlockReducer, so all results are the same at any rank count.
#include <Eigen/Dense>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "graphrf/core/counter_rng.hpp"
#include "graphrf/mpi/distributed_operator.hpp"
#include "graphrf/mpi/reproducible_sum.hpp"

namespace graphrf {

// This rank's rows of an N x columns block of independent N(0, scale^2) entries: entry (node, c) is element
// c % 2 of standard_normal_pair(w[0], w[1]) with w = philox_block(seed, domain, row key, c / 2, stream).
// It depends on (seed, domain, stream, node's key, column) only.
Eigen::MatrixXd keyed_gaussian_block(const std::vector<std::int64_t>& row_keys, Eigen::Index columns, std::uint64_t seed,
                                     RngDomain domain, std::uint64_t stream = 0, double scale = 1.0);

struct LambdaMaxOptions {
  int steps = 30;          // Lanczos steps (at most N)
  double margin = 0.01;    // relative safety margin on top of the residual bound
  std::uint64_t seed = 0;  // start vector: keyed_gaussian_block(..., RngDomain::wavelet_probe, stream 1)
};

// Upper estimate of the largest eigenvalue: m Lanczos steps from a Gaussian start (no reorthogonalisation;
// only the largest Ritz value theta is used, and it converges first), then (theta + |beta_m s_m|)(1 + margin):
// the residual norm |beta_m s_m| of the top Ritz pair bounds the distance from theta to an eigenvalue.
// Collective.
double estimate_lambda_max(const DistributedOperator& op, const RowBlockReducer& sums, const LambdaMaxOptions& options = {});

// 2 * round(ln N), at least 2: the toolbox default number of probe columns.
int default_probe_count(std::int64_t n_global);

// The probe block R for the eigencount: N x n_probe with N(0, 1/n_probe) entries
// (keyed_gaussian_block with RngDomain::wavelet_probe, stream 0).
Eigen::MatrixXd eigencount_probes(const DistributedOperator& op, int n_probe, std::uint64_t seed);

// ||p(L) R||_F^2 (not rounded) for the Jackson-Chebyshev low-pass p ~ 1_[0, lambda] of degree `order` on
// [0, lambda_max]. Its mean over R is tr(p(L)^2) ~ #{eigenvalues <= lambda}; with n_probe = Lr columns its
// variance is 2 tr(p(L)^4) / Lr <= 2 tr(p(L)^2) / Lr. Collective.
double eigencount(const DistributedOperator& op, const RowBlockReducer& sums, double lambda_max, double lambda,
                  const Eigen::MatrixXd& probes_local, int order);

struct LambdaKOptions {
  int order = 50;            // degree of the Jackson-Chebyshev low-pass filters (CSCbox default)
  double eps = 1e-2;         // stop when (hi - lo) / hi <= eps (CSCbox rule; its default is 0.1)
  double count_tolerance = 2.0;  // z: accept counts in [K - max(1/2, z sd), K + 1/2] (0: CSCbox's round(count) == K)
  int n_probe = 0;           // probe columns Lr; 0: default_probe_count(N)
  std::uint64_t seed = 0;
  int max_iterations = 60;   // guard for count > K at every lambda > 0 (e.g. K below the multiplicity of 0)
  // Called after every dichotomy step with a line for rank 0's log (rank 0 prints it; may be empty).
  std::function<void(const std::string&)> progress;
};

struct LambdaKEstimate {
  double lambda_k = 0;       // the cut-off: the middle of the acceptance window (or (lo + hi) / 2 if none was found)
  double lower = 0, upper = 0;  // the window's edges, or the last bracket [lo, hi] if no count was accepted
  double window_lower = 0, window_upper = 0;  // acceptance window (0, 0 if no count was accepted)
  std::int64_t count = -1;   // the rounded count at lambda_k (within the tolerance of K unless the search ran out first)
  int iterations = 0;        // dichotomy steps (each a polynomial count: no product with the operator)
  int refinement_steps = 0;  // bisection steps that located the window's edges (free as well)
  int n_probe = 0;
};

// lambda_K from spectral moments (spectral_moments.hpp), in three parts:
//  1. the only products with the operator: `order` Chebyshev steps on one fixed probe block R, giving the
//     moments mu_0 .. mu_{2 order};
//  2. the dichotomy of [P18 Alg. 1] on the count x(lambda) = ||p_[0,lambda](L) R||_F^2, each count a polynomial in
//     the moments (the same number the filtered eigencount gives, without filtering again):
//       while not accepted and (hi - lo) / hi > eps: mid = (lo + hi) / 2; x = x(mid);
//       accept if K - max(1/2, z sqrt(2 x / Lr)) <= x <= K + 1/2; else x > K: hi = mid; x < K: lo = mid;
//  3. refinement where the count is ambiguous: every cut-off in the acceptance window is consistent with K at
//     the probes' noise level, so both edges of the window are located (bisection to relative width eps, again
//     on the polynomial count) and lambda_K is its middle: mid-gap on separated spectra.
// With z = 0 the acceptance is CSCbox's rule (round(x) == K). Why z = 2 and why one-sided: x has standard
// deviation sqrt(2 tr(p^4) / Lr) <= sqrt(2 x / Lr), about 1.4 at K = 10 with the default Lr = 10. Inside a
// spectral gap after lambda_K, x sits on a plateau at K plus that noise, so round(x) is often K +- 1 and the
// exact rule walks to an edge of the gap. The upper edge is the bad one: the cut then lies on the next
// eigenvalue cluster, p_chi leaks all of it into the range finder, and on rings of cliques the kernel error
// went from ~1x to 20-10^8x the best rank-K error (1 seed in 4). The lower edge is harmless: p_chi(lambda_K)
// drops to ~0.7 but everything above the gap stays filtered out. So undercounts (which push the search up)
// are accepted down to z standard deviations, and overcounts (which push it down) are not. On dense spectra
// this moves lambda_K down by at most ~z sd in count, which the oversampling r absorbs; measured on a 20 x 20
// grid the kernel error did not change.
// Cost: `order` products with an N x Lr block (the filtered dichotomy took `order` per step), O(order^2) per
// count. // K >= 1. Collective.
LambdaKEstimate estimate_lambda_k(const DistributedOperator& op, const RowBlockReducer& sums, double lambda_max,
                                  std::int64_t k, const LambdaKOptions& options = {});

}  // namespace graphrf
