#pragma once
// Exact dense references for graph kernels (graphs up to a few thousand nodes): the closed-form matrix
// function through a symmetric eigendecomposition, and the truncated power series by Horner's rule.
// Used by the tests to check GRF estimates, and by `graphrf` to report errors on small graphs.
#include <Eigen/Dense>

#include <span>

#include "graphrf/grf/kernel.hpp"

namespace graphrf {

// D^-1/2 A D^-1/2 with d_i = sum_j A_ij; rows and columns of isolated nodes (d_i = 0) are zero.
// A must be square with nonnegative row sums (std::invalid_argument otherwise).
Eigen::MatrixXd normalized_adjacency(const Eigen::MatrixXd& A);

// W = V diag(lambda) V^T, computed once and shared by every kernel of the same W (e.g. attention heads).
struct DenseSpectrum {
  Eigen::VectorXd values;
  Eigen::MatrixXd vectors;
};
// Eigendecomposition of a symmetric W (to 1e-12 relative; std::invalid_argument otherwise).
DenseSpectrum symmetric_spectrum(const Eigen::MatrixXd& W);
// V diag(g(lambda)) V^T with g = kernel_of_w_eigenvalue(spec, .); Error if g is not finite somewhere.
Eigen::MatrixXd kernel_matrix_from_spectrum(const KernelSpec& spec, const DenseSpectrum& w);

// The closed form V diag(g(lambda)) V^T, with W = V diag(lambda) V^T from SelfAdjointEigenSolver and
// g = kernel_of_w_eigenvalue(spec, .). W must be square and symmetric (to 1e-12 relative; only its lower
// triangle is read). Throws graphrf::Error if g is not finite at some eigenvalue (e.g. a regularized
// Laplacian with 1 + beta (1 - lambda) <= 0 and non-integer power).
Eigen::MatrixXd kernel_matrix_exact(const KernelSpec& spec, const Eigen::MatrixXd& W);

// sum_k alpha_k W^k by Horner's rule (alpha.size() - 1 dense products); the zero matrix for empty alpha.
Eigen::MatrixXd kernel_matrix_series(std::span<const double> alpha, const Eigen::MatrixXd& W);

// ||estimate - exact||_F / ||exact||_F. If exact is zero: 0 when estimate is zero too, +inf otherwise.
double relative_frobenius_error(const Eigen::MatrixXd& estimate, const Eigen::MatrixXd& exact);

}  // namespace graphrf
