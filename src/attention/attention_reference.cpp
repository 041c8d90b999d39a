#include "graphrf/attention/attention_reference.hpp"

#include <cmath>

namespace graphrf {

namespace {
Eigen::MatrixXd normalise_rows(const Eigen::MatrixXd& scores, const Eigen::MatrixXd& v) {
  Eigen::MatrixXd out = scores * v;
  const Eigen::VectorXd den = scores.rowwise().sum();
  for (Eigen::Index i = 0; i < out.rows(); ++i) out.row(i) /= den(i);
  return out;
}

Eigen::MatrixXd softmax_scores(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k) {
  Eigen::MatrixXd logits = q * k.transpose() / std::sqrt(static_cast<double>(q.cols()));
  for (Eigen::Index i = 0; i < logits.rows(); ++i) logits.row(i).array() -= logits.row(i).maxCoeff();
  return logits.array().exp().matrix();
}
}  // namespace

Eigen::MatrixXd softmax_attention(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k, const Eigen::MatrixXd& v) {
  return normalise_rows(softmax_scores(q, k), v);
}

Eigen::MatrixXd masked_softmax_attention(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k, const Eigen::MatrixXd& v,
                                         const Eigen::MatrixXd& mask) {
  return normalise_rows(softmax_scores(q, k).cwiseProduct(mask), v);
}

Eigen::MatrixXd masked_linear_attention(const Eigen::MatrixXd& phi_q, const Eigen::MatrixXd& phi_k,
                                        const Eigen::MatrixXd& v, const Eigen::MatrixXd& mask) {
  return normalise_rows((phi_q * phi_k.transpose()).cwiseProduct(mask), v);
}

Eigen::MatrixXd score_attention(const Eigen::MatrixXd& scores, const Eigen::MatrixXd& v, const Eigen::MatrixXd& mask) {
  return normalise_rows(scores.cwiseProduct(mask), v);
}

double relative_error(const Eigen::MatrixXd& estimate, const Eigen::MatrixXd& reference) {
  return (estimate - reference).norm() / reference.norm();
}

}  // namespace graphrf
