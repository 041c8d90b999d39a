// The kernel a feature map estimates, for --reference. See feature_kernel.hpp.
#include "graphrf/attention/feature_kernel.hpp"

#include <cmath>
#include <stdexcept>

namespace graphrf {

FeatureKernel feature_kernel(const FeatureMap& map) {
  FeatureKernel k;
  const std::string name(feature_kind_name(map.kind()));
  if (!is_random(map.kind())) {
    k.name = name + " feature product phi(q)^T phi(k)";
    return k;
  }
  k.exponential = true;
  k.d = map.input_dim();
  if (map.kind() == FeatureKind::dark) {
    k.sigma = map.dark_m().transpose() * map.dark_m();
    k.sigma = (0.5 * (k.sigma + k.sigma.transpose())).eval();
    k.name = "exp(q^T Sigma k / sqrt(d))";
  } else {
    k.name = "softmax exp(q^T k / sqrt(d))";
  }
  return k;
}

Eigen::MatrixXd kernel_logits(const FeatureKernel& kernel, const Eigen::MatrixXd& q, const Eigen::MatrixXd& k) {
  if (!kernel.exponential) throw std::logic_error("kernel_logits: a deterministic kernel has no logits");
  // The softmax kernel in the operation order of softmax_attention (attention_reference.hpp), so that
  // favor's kernel reference is the softmax reference bit for bit.
  const double sqrt_d = std::sqrt(static_cast<double>(kernel.d));
  if (kernel.sigma.size() == 0) return q * k.transpose() / sqrt_d;
  return (q * (kernel.sigma * k.transpose())) / sqrt_d;
}

Eigen::MatrixXd kernel_scores(const FeatureKernel& kernel, const Eigen::MatrixXd& q, const Eigen::MatrixXd& k,
                              const Eigen::MatrixXd& phi_q, const Eigen::MatrixXd& phi_k) {
  if (!kernel.exponential) return phi_q * phi_k.transpose();
  Eigen::MatrixXd l = kernel_logits(kernel, q, k);
  for (Eigen::Index i = 0; i < l.rows(); ++i) l.row(i).array() -= l.row(i).maxCoeff();
  return l.array().exp().matrix();
}

}  // namespace graphrf
