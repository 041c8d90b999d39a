// Exact dense references for graph kernels. See dense_reference.hpp.
#include "graphrf/grf/dense_reference.hpp"

#include <Eigen/Eigenvalues>

#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

#include "graphrf/core/error.hpp"

namespace graphrf {
namespace {

void require_square(const Eigen::MatrixXd& M, const char* who) {
  if (M.rows() != M.cols()) {
    std::ostringstream os;
    os << who << ": matrix must be square (got " << M.rows() << " x " << M.cols() << ")";
    throw std::invalid_argument(os.str());
  }
}

}  // namespace

Eigen::MatrixXd normalized_adjacency(const Eigen::MatrixXd& A) {
  require_square(A, "normalized_adjacency");
  const Eigen::VectorXd d = A.rowwise().sum();
  Eigen::VectorXd inv_sqrt(d.size());
  for (Eigen::Index i = 0; i < d.size(); ++i) {
    if (!(d(i) >= 0.0))
      throw std::invalid_argument("normalized_adjacency: weighted degree of node " + std::to_string(i) +
                                  " is negative or NaN");
    inv_sqrt(i) = d(i) > 0.0 ? 1.0 / std::sqrt(d(i)) : 0.0;
  }
  return inv_sqrt.asDiagonal() * A * inv_sqrt.asDiagonal();
}

DenseSpectrum symmetric_spectrum(const Eigen::MatrixXd& W) {
  require_square(W, "kernel_matrix_exact");
  const double scale = W.norm();
  if (!((W - W.transpose()).norm() <= 1e-12 * scale))
    throw std::invalid_argument("kernel_matrix_exact: W must be symmetric");
  if (W.rows() == 0) return {};
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(W);
  if (es.info() != Eigen::Success) throw Error("kernel_matrix_exact: eigendecomposition of W did not converge");
  return {es.eigenvalues(), es.eigenvectors()};
}

Eigen::MatrixXd kernel_matrix_from_spectrum(const KernelSpec& spec, const DenseSpectrum& w) {
  if (w.values.size() == 0) return Eigen::MatrixXd(0, 0);
  Eigen::VectorXd g(w.values.size());
  for (Eigen::Index i = 0; i < g.size(); ++i) {
    g(i) = kernel_of_w_eigenvalue(spec, w.values(i));
    if (!std::isfinite(g(i))) {
      std::ostringstream os;
      os.precision(12);
      os << "kernel_matrix_exact: " << describe(spec) << " is not finite at eigenvalue " << w.values(i) << " of W";
      throw Error(os.str());
    }
  }
  return w.vectors * g.asDiagonal() * w.vectors.transpose();
}

Eigen::MatrixXd kernel_matrix_exact(const KernelSpec& spec, const Eigen::MatrixXd& W) {
  return kernel_matrix_from_spectrum(spec, symmetric_spectrum(W));
}

Eigen::MatrixXd kernel_matrix_series(std::span<const double> alpha, const Eigen::MatrixXd& W) {
  require_square(W, "kernel_matrix_series");
  const Eigen::Index n = W.rows();
  if (alpha.empty()) return Eigen::MatrixXd::Zero(n, n);
  Eigen::MatrixXd R = Eigen::MatrixXd::Identity(n, n) * alpha.back();
  Eigen::MatrixXd tmp(n, n);
  for (std::size_t k = alpha.size() - 1; k-- > 0;) {
    tmp.noalias() = R * W;
    R = tmp;
    R.diagonal().array() += alpha[k];
  }
  return R;
}

double relative_frobenius_error(const Eigen::MatrixXd& estimate, const Eigen::MatrixXd& exact) {
  if (estimate.rows() != exact.rows() || estimate.cols() != exact.cols())
    throw std::invalid_argument("relative_frobenius_error: matrices differ in shape");
  const double denom = exact.norm();
  const double diff = (estimate - exact).norm();
  if (denom == 0.0) return diff == 0.0 ? 0.0 : std::numeric_limits<double>::infinity();
  return diff / denom;
}

}  // namespace graphrf
