#pragma once
// The hyperparameters a GRF Gaussian process learns, and their map to the modulation function.
// The kernel is K = sigma_f^2 M(beta) with M = sum_k alpha_k(beta) W^k (default diffusion exp(-beta L)), so its
// GRFs use f_t(theta) = sigma_f f^M_t(beta): Phi(theta) = sum_t f_t(theta) M_t and Phi Phi^T estimates K.
// The noise variance is sigma_n^2.
//   --learn hyper: parameters (log sigma_f, log beta, log sigma_n); log beta only for kernels with a beta
//                  (diffusion, exp-adjacency, regularized-laplacian, cosine). Logs keep them positive.
//   --learn f:     parameters (f_0, ..., f_T, log sigma_n): the modulation itself, as Reid et al. (2025a,
//                  topological masking) learn it; it starts at sigma_f f^M(beta).
//   --learn none:  the hyperparameter vector, kept fixed.
#include <Eigen/Dense>
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "graphrf/grf/kernel.hpp"

namespace graphrf {

enum class GpLearn { none, hyper, f };
GpLearn parse_gp_learn(std::string_view);  // InputError naming --learn
const char* gp_learn_name(GpLearn);

// Has the kernel a beta parameter to learn?
bool kernel_has_beta(const KernelSpec& kernel);

class GpParameters {
 public:
  // kernel.beta is the starting beta. n_lengths = T + 1 coefficients of f.
  GpParameters(KernelSpec kernel, GpLearn learn, int n_lengths, double sigma_f, double sigma_n);

  const std::vector<double>& initial() const { return initial_; }
  std::vector<std::string> names() const;
  std::size_t size() const { return initial_.size(); }

  std::vector<double> f(const std::vector<double>& p) const;
  double sigma_n(const std::vector<double>& p) const { return std::exp(p.back()); }
  double sigma_f(const std::vector<double>& p) const;  // f mode: the starting value
  double beta(const std::vector<double>& p) const;     // f mode or no beta: the starting value
  // d f_t / d p_j (n_lengths x size(); the last column, log sigma_n, is zero).
  Eigen::MatrixXd f_jacobian(const std::vector<double>& p) const;

 private:
  std::vector<double> kernel_f_at(double beta) const;

  KernelSpec kernel_;
  GpLearn learn_;
  int n_lengths_;
  double sigma_f0_;
  bool learn_beta_;
  std::vector<double> initial_;
};

}  // namespace graphrf
