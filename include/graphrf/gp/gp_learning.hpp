#pragma once
// Maximises the GRF-GP log marginal likelihood with Adam (Kingma and Ba 2015) on stochastic gradients
// (estimate_lml, fresh probes each iteration). Schedule: `iterations` steps (default 50), step size decayed
// from learning_rate (default 0.05) to learning_rate / 10 along a half cosine, lr_k = lr (0.1 + 0.9 (1 +
// cos(pi k / K)) / 2); moment decays 0.9 and 0.999, epsilon 1e-8. With log parameters a step of 0.05
// changes sigma_f, beta or sigma_n by about 5%. The result is the last iterate. Prints one progress line per
// iteration on rank 0 (LML estimate, gradient norm, theta, CG iterations).
#include <vector>

#include "graphrf/gp/gp_parameters.hpp"
#include "graphrf/gp/marginal_likelihood.hpp"
#include "graphrf/mpi/log.hpp"

namespace graphrf {

struct AdamSchedule {
  int iterations = 50;
  double learning_rate = 0.05;
  double final_fraction = 0.1;
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;
  double step_size(int k) const;  // lr_k for k = 0..iterations-1
};

// Adam's moment estimates; step() moves p uphill along g with the schedule's k-th step size.
class AdamAscent {
 public:
  AdamAscent(const AdamSchedule& schedule, Eigen::Index n);
  void step(Eigen::Ref<Eigen::VectorXd> p, const Eigen::VectorXd& g);

 private:
  AdamSchedule schedule_;
  Eigen::VectorXd m_, v_;
  int k_ = 0;
};

struct LearningTrace {
  std::vector<double> lml, gradient_norm, sigma_f, beta, sigma_n;  // one entry per iteration (before its step)
  std::vector<int> cg_iterations;
  std::vector<double> parameters;  // iterations x n_parameters, row-major
};

// Gradient of the LML estimate with respect to the parameter vector (chain rule through f(p) and sigma_n).
Eigen::VectorXd parameter_gradient(const GpParameters& parameters, const std::vector<double>& p, const LmlEstimate& e);

// Collective. Leaves phi set to the returned parameters' f.
std::vector<double> learn_gp(GrfFeatureOperator& phi, const GpData& data,
                             const GpParameters& parameters, const LmlOptions& options, const AdamSchedule& schedule,
                             const Log& log, LearningTrace& trace);

}  // namespace graphrf
