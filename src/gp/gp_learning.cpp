#include "graphrf/gp/gp_learning.hpp"

#include <cmath>
#include <numbers>

namespace graphrf {

double AdamSchedule::step_size(int k) const {
  const double progress = iterations > 1 ? static_cast<double>(k) / static_cast<double>(iterations - 1) : 0.0;
  return learning_rate * (final_fraction + (1 - final_fraction) * 0.5 * (1 + std::cos(std::numbers::pi * progress)));
}

AdamAscent::AdamAscent(const AdamSchedule& schedule, Eigen::Index n)
    : schedule_(schedule), m_(Eigen::VectorXd::Zero(n)), v_(Eigen::VectorXd::Zero(n)) {}

void AdamAscent::step(Eigen::Ref<Eigen::VectorXd> p, const Eigen::VectorXd& g) {
  m_ = schedule_.beta1 * m_ + (1 - schedule_.beta1) * g;
  v_ = schedule_.beta2 * v_ + (1 - schedule_.beta2) * g.cwiseProduct(g);
  const double correction1 = 1 - std::pow(schedule_.beta1, k_ + 1), correction2 = 1 - std::pow(schedule_.beta2, k_ + 1);
  p.array() += schedule_.step_size(k_) * (m_ / correction1).array() / ((v_ / correction2).array().sqrt() + schedule_.epsilon);
  ++k_;
}

Eigen::VectorXd parameter_gradient(const GpParameters& parameters, const std::vector<double>& p, const LmlEstimate& e) {
  Eigen::VectorXd g = parameters.f_jacobian(p).transpose() * e.grad_f;
  g(g.size() - 1) += e.grad_log_sigma_n;
  return g;
}

std::vector<double> learn_gp(GrfFeatureOperator& phi, const GpData& data,
                             const GpParameters& parameters, const LmlOptions& options, const AdamSchedule& schedule,
                             const Log& log, LearningTrace& trace) {
  std::vector<double> p = parameters.initial();
  AdamAscent adam(schedule, static_cast<Eigen::Index>(p.size()));
  for (int k = 0; k < schedule.iterations; ++k) {
    phi.set_f(parameters.f(p));
    const LmlEstimate e = estimate_lml(phi, data, parameters.sigma_n(p), options, static_cast<std::uint64_t>(k));
    const Eigen::VectorXd g = parameter_gradient(parameters, p, e);
    trace.lml.push_back(e.lml);
    trace.gradient_norm.push_back(g.norm());
    trace.sigma_f.push_back(parameters.sigma_f(p));
    trace.beta.push_back(parameters.beta(p));
    trace.sigma_n.push_back(parameters.sigma_n(p));
    trace.cg_iterations.push_back(e.cg_iterations);
    trace.parameters.insert(trace.parameters.end(), p.begin(), p.end());
    log.progress("learn       iteration " + std::to_string(k + 1) + "/" + std::to_string(schedule.iterations) + "  LML " +
                     fmt(e.lml, 3) + "  |grad| " + sci(g.norm()) + "  sigma_f " + fmt(parameters.sigma_f(p), 4) + "  beta " +
                     fmt(parameters.beta(p), 4) + "  sigma_n " + fmt(parameters.sigma_n(p), 4) + "  CG " +
                     std::to_string(e.cg_iterations) + (e.converged ? "" : " (not converged)"),
                 k + 1 == schedule.iterations);
    adam.step(Eigen::Map<Eigen::VectorXd>(p.data(), static_cast<Eigen::Index>(p.size())), g);
  }
  phi.set_f(parameters.f(p));
  return p;
}

}  // namespace graphrf
