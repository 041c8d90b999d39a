#pragma once
// Importance-sampled positive random features for the softmax kernel (`--feature favor --draw importance`),
// after Farzam et al. 2026, "Data-aware random feature kernel for transformers", Lemma 3.1 and Theorem 3.2.
//
// With x = d^-1/4 q and y = d^-1/4 k, frequencies omega_i drawn from a proposal psi instead of p_I = N(0, I)
// and each feature weighted by the importance factor p_I(omega_i) / psi(omega_i) keep the estimate unbiased:
//   phi(x)_i = m^-1/2 sqrt(p_I(omega_i) / psi(omega_i)) exp(omega_i^T x - |x|^2/2),
//   E[phi(x)^T phi(y)] = E_psi[(p_I / psi)(omega) exp(omega^T (x + y) - |x|^2/2 - |y|^2/2)] = exp(x^T y)
// for any psi with full support (Lemma 3.1). For x, y ~ N(0, Lambda), Theorem 3.2 gives the proposal of least
// variance: psi = N(0, Sigma*) with Sigma* = (I + 2 Lambda)(I - 2 Lambda)^-1, a covariance only when every
// eigenvalue of 2 Lambda is below 1. Lambda is the empirical covariance of the pooled scaled queries and keys.
// The log weight is log(p_I / psi)(omega) = (1/2) log det Sigma* - (1/2) omega^T (I - Sigma*^-1) omega.
//
// Coupling: omega_i = Sigma*^1/2 g_i with the g_i drawn by an orthogonal draw (orthogonal blocks with chi norms,
// random_projection.hpp) and, with --antithetic, g and -g. Every omega_i then has exactly the law N(0, Sigma*),
// and the estimate is a sum of per-feature terms, so it stays unbiased whatever the dependence between the
// rows; the omega_i of a block are Sigma*^-1-orthogonal (conjugate), not orthogonal. iid g would also be
// unbiased; the orthogonal coupling is kept because it is the default of the isotropic draws it is compared with.
#include <Eigen/Dense>

#include <cstdint>
#include <span>

#include "graphrf/mpi/communicator.hpp"

namespace graphrf {

struct ImportanceProposal {
  Eigen::MatrixXd sigma;       // Sigma* (d x d)
  Eigen::MatrixXd sqrt_sigma;  // its symmetric square root
  Eigen::MatrixXd inverse;     // Sigma*^-1
  double log_det = 0.0;        // log det Sigma*
};

// Collective. The covariance of the pooled rows of `queries` and `keys` (this rank's rows, one of each per
// node, both n_local x d; any column count without rows) multiplied by `scale`: one mean, sum (x - mean)(x - mean)^T / (2N - 1). Sums run in
// a fixed order over the node keys `row_keys` (a permutation of 0..n_global-1 over all ranks;
// reproducible_sum.hpp), so the result has the same bits at any rank count.
Eigen::MatrixXd reproducible_pooled_covariance(const Communicator& comm, std::int64_t n_global,
                                               std::span<const std::int64_t> row_keys, const Eigen::MatrixXd& queries,
                                               const Eigen::MatrixXd& keys, int d, double scale);

// Sigma* of Theorem 3.2 from a symmetric Lambda, by one eigendecomposition (Sigma* shares Lambda's
// eigenvectors, eigenvalues (1 + 2 l) / (1 - 2 l)). InputError naming features.draw importance and the options that
// work when an eigenvalue of 2 Lambda is >= 1 (or Lambda is not finite).
ImportanceProposal importance_proposal(const Eigen::MatrixXd& lambda);

// log(p_I / psi)(omega_i) for every row omega_i of `omega` (m x d).
Eigen::VectorXd importance_log_weights(const ImportanceProposal& proposal, const Eigen::MatrixXd& omega);

}  // namespace graphrf
