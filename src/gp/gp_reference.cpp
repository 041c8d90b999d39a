#include "graphrf/gp/gp_reference.hpp"

#include <cmath>
#include <numbers>

#include "graphrf/core/error.hpp"
#include "graphrf/gp/gp_parameters.hpp"
#include "graphrf/mpi/phase_progress.hpp"

namespace graphrf {

namespace {

Eigen::MatrixXd select(const Eigen::MatrixXd& m, const std::vector<Eigen::Index>& rows, const std::vector<Eigen::Index>& cols) {
  Eigen::MatrixXd out(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(cols.size()));
  for (size_t i = 0; i < rows.size(); ++i)
    for (size_t j = 0; j < cols.size(); ++j) out(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = m(rows[i], cols[j]);
  return out;
}

Eigen::VectorXd select(const Eigen::VectorXd& v, const std::vector<Eigen::Index>& rows) {
  Eigen::VectorXd out(static_cast<Eigen::Index>(rows.size()));
  for (size_t i = 0; i < rows.size(); ++i) out(static_cast<Eigen::Index>(i)) = v(rows[i]);
  return out;
}

Eigen::MatrixXd training_system(const Eigen::MatrixXd& k, const std::vector<Eigen::Index>& train, double sigma_n) {
  Eigen::MatrixXd a = select(k, train, train);
  a.diagonal().array() += sigma_n * sigma_n;
  return a;
}

}  // namespace

DensePosterior dense_posterior(const Eigen::MatrixXd& k, const Eigen::VectorXd& y, const std::vector<Eigen::Index>& train,
                               const std::vector<Eigen::Index>& test, double sigma_n) {
  const Eigen::LLT<Eigen::MatrixXd> chol(training_system(k, train, sigma_n));
  const Eigen::MatrixXd k_xt = select(k, train, test);
  DensePosterior out;
  out.mean = k_xt.transpose() * chol.solve(select(y, train));
  out.covariance = select(k, test, test) - k_xt.transpose() * chol.solve(k_xt);
  return out;
}

double gaussian_kl(const Eigen::VectorXd& m0, const Eigen::MatrixXd& s0, const Eigen::VectorXd& m1, const Eigen::MatrixXd& s1) {
  const Eigen::LDLT<Eigen::MatrixXd> c1(s1), c0(s0);
  const Eigen::VectorXd d = m1 - m0;
  const double log_det1 = c1.vectorD().array().log().sum(), log_det0 = c0.vectorD().array().log().sum();
  return 0.5 * (c1.solve(s0).trace() + d.dot(c1.solve(d)) - static_cast<double>(m0.size()) + log_det1 - log_det0);
}

ExactGpKernel::ExactGpKernel(KernelSpec kernel, const Eigen::MatrixXd& w) : kernel_(std::move(kernel)) {
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(w);
  vectors_ = eig.eigenvectors();
  lambda_ = eig.eigenvalues();
}

Eigen::VectorXd ExactGpKernel::spectrum(double beta) const {
  KernelSpec k = kernel_;
  k.beta = beta;
  Eigen::VectorXd g(lambda_.size());
  for (Eigen::Index i = 0; i < lambda_.size(); ++i) g(i) = kernel_of_w_eigenvalue(k, lambda_(i));
  if (!g.allFinite()) throw Error("reference: the kernel is not finite on the spectrum of W");
  return g;
}

Eigen::MatrixXd ExactGpKernel::from_spectrum(const Eigen::VectorXd& values) const {
  return vectors_ * values.asDiagonal() * vectors_.transpose();
}

Eigen::MatrixXd ExactGpKernel::matrix(double sigma_f, double beta) const {
  return from_spectrum(sigma_f * sigma_f * spectrum(beta));
}

Eigen::MatrixXd ExactGpKernel::d_log_beta(double sigma_f, double beta) const {
  const double h = 1e-4;
  return from_spectrum(sigma_f * sigma_f * (spectrum(beta * std::exp(h)) - spectrum(beta * std::exp(-h))) / (2 * h));
}

double dense_lml(const Eigen::MatrixXd& k, const Eigen::VectorXd& y, const std::vector<Eigen::Index>& train, double sigma_n) {
  const Eigen::LLT<Eigen::MatrixXd> chol(training_system(k, train, sigma_n));
  const Eigen::VectorXd yx = select(y, train);
  const double log_det = 2 * chol.matrixL().toDenseMatrix().diagonal().array().log().sum();
  return -0.5 * yx.dot(chol.solve(yx)) - 0.5 * log_det - 0.5 * static_cast<double>(train.size()) * std::log(2 * std::numbers::pi);
}

DenseLearning learn_dense_gp(const ExactGpKernel& kernel, const Eigen::VectorXd& y, const std::vector<Eigen::Index>& train,
                             double sigma_f, double beta, double sigma_n, const AdamSchedule& schedule) {
  const bool learn_beta = kernel_has_beta(kernel.kernel());
  Eigen::VectorXd p = Eigen::Vector3d(std::log(sigma_f), std::log(beta), std::log(sigma_n));
  AdamAscent adam(schedule, 3);
  const Eigen::VectorXd yx = select(y, train);
  DenseLearning out;
  // Each step factors and inverts the T x T training system: minutes for a few thousand training nodes.
  PhaseProgress progress("reference   exact-kernel GP: Adam steps on " + std::to_string(train.size()) + " training nodes",
                         schedule.iterations);
  for (int it = 0; it < schedule.iterations; ++it) {
    progress.step(it);
    const double sf = std::exp(p(0)), b = std::exp(p(1)), sn = std::exp(p(2));
    const Eigen::MatrixXd k = kernel.matrix(sf, b);
    const Eigen::MatrixXd a = training_system(k, train, sn);
    const Eigen::LLT<Eigen::MatrixXd> chol(a);
    const Eigen::VectorXd alpha = chol.solve(yx);
    const Eigen::MatrixXd inverse = chol.solve(Eigen::MatrixXd::Identity(a.rows(), a.cols()));
    const Eigen::MatrixXd inner = alpha * alpha.transpose() - inverse;  // dLML = 1/2 tr(inner dA)
    out.lml.push_back(dense_lml(k, y, train, sn));
    Eigen::VectorXd g(3);
    g(0) = 0.5 * (inner.cwiseProduct(2 * (a - sn * sn * Eigen::MatrixXd::Identity(a.rows(), a.cols())))).sum();
    g(1) = learn_beta ? 0.5 * (inner.cwiseProduct(select(kernel.d_log_beta(sf, b), train, train))).sum() : 0.0;
    g(2) = 0.5 * inner.trace() * 2 * sn * sn;
    adam.step(p, g);
  }
  out.sigma_f = std::exp(p(0));
  out.beta = std::exp(p(1));
  out.sigma_n = std::exp(p(2));
  return out;
}

}  // namespace graphrf
