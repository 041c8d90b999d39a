#include "graphrf/gp/lanczos_quadrature.hpp"

#include <Eigen/Dense>
#include <cmath>

#include "graphrf/core/error.hpp"

namespace graphrf {

double lanczos_log_quadrature(const std::vector<double>& alpha, const std::vector<double>& beta) {
  const auto m = static_cast<Eigen::Index>(alpha.size());
  if (m == 0) throw Error("lanczos_log_quadrature: no CG steps");
  Eigen::VectorXd diagonal(m), off(std::max<Eigen::Index>(m - 1, 0));
  for (Eigen::Index j = 0; j < m; ++j) {
    diagonal(j) = 1.0 / alpha[static_cast<size_t>(j)];
    if (j > 0) diagonal(j) += beta[static_cast<size_t>(j - 1)] / alpha[static_cast<size_t>(j - 1)];
    if (j + 1 < m) off(j) = std::sqrt(beta[static_cast<size_t>(j)]) / alpha[static_cast<size_t>(j)];
  }
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig;
  eig.computeFromTridiagonal(diagonal, off, Eigen::ComputeEigenvectors);
  double sum = 0;
  for (Eigen::Index k = 0; k < m; ++k) {
    const double weight = eig.eigenvectors()(0, k) * eig.eigenvectors()(0, k);
    sum += weight * std::log(eig.eigenvalues()(k));
  }
  return sum;
}

}  // namespace graphrf
