#pragma once
// Dense references for GP regression on small graphs (--reference, up to 5000 nodes), on one rank:
// the exact posterior over test nodes for a given kernel matrix, the KL divergence between Gaussians
// (how far the GRF posterior is from the exact one, not normalised by the number of test nodes), and
// exact-kernel hyperparameter learning with exact gradients and the same Adam schedule as the GRF-GP.
#include <Eigen/Dense>
#include <vector>

#include "graphrf/gp/gp_learning.hpp"
#include "graphrf/grf/kernel.hpp"

namespace graphrf {

struct DensePosterior {
  Eigen::VectorXd mean;        // at the test nodes
  Eigen::MatrixXd covariance;  // of the latent function at the test nodes
};

// K: N x N prior covariance; y at every node (only training entries read); train/test: node indices.
DensePosterior dense_posterior(const Eigen::MatrixXd& k, const Eigen::VectorXd& y, const std::vector<Eigen::Index>& train,
                               const std::vector<Eigen::Index>& test, double sigma_n);

// KL(N(m0, S0) || N(m1, S1)) = 1/2 [tr(S1^-1 S0) + (m1 - m0)^T S1^-1 (m1 - m0) - k + ln det S1 - ln det S0].
double gaussian_kl(const Eigen::VectorXd& m0, const Eigen::MatrixXd& s0, const Eigen::VectorXd& m1, const Eigen::MatrixXd& s1);

// The exact kernel sigma_f^2 M(beta) for the W = V diag(lambda) V^T of the graph.
class ExactGpKernel {
 public:
  ExactGpKernel(KernelSpec kernel, const Eigen::MatrixXd& w);
  Eigen::MatrixXd matrix(double sigma_f, double beta) const;
  // d K / d log beta (central difference of the kernel's closed form in log beta).
  Eigen::MatrixXd d_log_beta(double sigma_f, double beta) const;
  const KernelSpec& kernel() const { return kernel_; }

 private:
  Eigen::MatrixXd from_spectrum(const Eigen::VectorXd& values) const;
  Eigen::VectorXd spectrum(double beta) const;
  KernelSpec kernel_;
  Eigen::MatrixXd vectors_;
  Eigen::VectorXd lambda_;
};

// Exact LML on the training nodes and its gradient in (log sigma_f, log beta if learnable, log sigma_n).
double dense_lml(const Eigen::MatrixXd& k, const Eigen::VectorXd& y, const std::vector<Eigen::Index>& train, double sigma_n);

struct DenseLearning {
  double sigma_f = 0, beta = 0, sigma_n = 0;
  std::vector<double> lml;  // per iteration
};
// Adam on the exact LML with exact gradients, from the given start, with `schedule`.
DenseLearning learn_dense_gp(const ExactGpKernel& kernel, const Eigen::VectorXd& y, const std::vector<Eigen::Index>& train,
                             double sigma_f, double beta, double sigma_n, const AdamSchedule& schedule);

}  // namespace graphrf
