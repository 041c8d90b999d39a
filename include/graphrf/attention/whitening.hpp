#pragma once
// Data-aware whitening for DARKFormer features (Farzam et al. 2026, "Data-aware random feature kernel for
// transformers", Prop. C.1): M = Lambda^-1/2, with Lambda the covariance of the pooled queries and keys, so that M
// x is isotropic and the dark feature map estimates exp(q^T Lambda^-1 k / sqrt(d)). The rows are spread over
// ranks; the moments are global.
//
// Reproducibility: the per-rank partial sums are combined in a fixed binomial-tree order by point-to-point
// messages and rank 0's result is broadcast, so for a fixed rank count and row distribution the moments
// are the same bits run after run whatever algorithm the MPI library would pick for MPI_Allreduce, and
// every rank gets the identical M (also broadcast from rank 0). The result is not bitwise independent of
// the rank count (floating-point sums in a different order).
#include <Eigen/Dense>

#include <cstdint>
#include <string_view>

#include "graphrf/mpi/communicator.hpp"

namespace graphrf {

// The field of AttentionConfig that error messages name (the apps show its flag, --dark-ridge).
inline constexpr std::string_view kDarkRidgeOption = "attention.dark_ridge";

struct PooledMoments {
  std::int64_t count = 0;      // pooled query and key rows over all ranks
  Eigen::VectorXd mean;        // d
  Eigen::MatrixXd covariance;  // d x d: sum_rows (x - mean)(x - mean)^T / (count - 1); zero if count < 2
};

// Collective. `queries` and `keys` hold this rank's rows (n_q x d and n_k x d; 0 rows allowed, then any
// column count), each multiplied by `scale` before use: pass feature_input_scale(options, d, role), i.e.
// d^-1/4 for dark, so that Lambda is the covariance of the vectors M acts on. Queries and keys are pooled
// into one sample (one mean, one covariance). Mean and covariance are computed in two passes (no
// cancellation from a large mean). Identical on every rank.
PooledMoments pooled_moments(const Communicator& comm, const Eigen::MatrixXd& queries, const Eigen::MatrixXd& keys,
                             int d, double scale);

// The symmetric inverse square root (lambda + ridge I)^-1/2 = V diag(e^-1/2) V^T by
// Eigen::SelfAdjointEigenSolver. Throws InputError:
//   "attention.dark_ridge: must be finite and >= 0 (got x)";
//   "features.kind dark: the pooled query/key covariance is not finite ...";
//   "features.kind dark: the pooled query/key covariance is singular (smallest eigenvalue s, largest l);
//    add attention.dark_ridge EPS to regularise" when s <= 1e-12 * l (or l <= 0).
Eigen::MatrixXd inverse_sqrt(const Eigen::MatrixXd& lambda, double ridge);

// Relative eigenvalue threshold of inverse_sqrt: smaller ones make the covariance singular.
inline constexpr double kSingularRelativeEigenvalue = 1e-12;

// Collective: M = (Lambda + ridge I)^-1/2 for the pooled moments of (queries, keys) scaled by `scale`.
// Bit-identical on every rank. Every failure (fewer than 2 pooled rows, singular covariance, bad ridge) is
// thrown on every rank as one collective InputError (see collective_try).
Eigen::MatrixXd whitening_matrix(const Communicator& comm, const Eigen::MatrixXd& queries, const Eigen::MatrixXd& keys,
                                 int d, double scale, double ridge = 0.0);

}  // namespace graphrf
