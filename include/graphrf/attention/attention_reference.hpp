#pragma once
// Dense O(N^2) attention for --reference on small graphs and for tests: exact softmax, mask-weighted
// softmax, mask-weighted linear attention (the quadratic variant, Eq. 7 of
// Reid et al. 2025a, "Linear transformer topological masking with graph random features") and the same with any mask.
#include <Eigen/Dense>

namespace graphrf {

// softmax(Q K^T / sqrt(d)) V, row-wise stabilised.
Eigen::MatrixXd softmax_attention(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k, const Eigen::MatrixXd& v);
// (exp(Q K^T / sqrt(d)) o M) V / rowsum.
Eigen::MatrixXd masked_softmax_attention(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k, const Eigen::MatrixXd& v,
                                         const Eigen::MatrixXd& mask);
// ((Phi_q Phi_k^T) o M) V / rowsum.
Eigen::MatrixXd masked_linear_attention(const Eigen::MatrixXd& phi_q, const Eigen::MatrixXd& phi_k,
                                        const Eigen::MatrixXd& v, const Eigen::MatrixXd& mask);
// (scores o M) V / rowsum, for any nonnegative scores (e.g. kernel_scores of feature_kernel.hpp).
Eigen::MatrixXd score_attention(const Eigen::MatrixXd& scores, const Eigen::MatrixXd& v, const Eigen::MatrixXd& mask);
double relative_error(const Eigen::MatrixXd& estimate, const Eigen::MatrixXd& reference);

}  // namespace graphrf
