#pragma once
// The kernel kappa(q, k) that a feature map estimates, E[phi(q)^T phi(k)]: what `--reference` measures a
// feature map's attention against ("exact M-masked kernel"), so that the error of a random map falls with m
// towards the error of its own kernel rather than towards the distance between two kernels.
//
//   relu, elu1    the deterministic feature product phi(q)^T phi(k) itself (nothing is estimated);
//   favor, trig   the softmax kernel exp(q^T k / sqrt(d));
//   dark          the data-aligned kernel exp(q^T Sigma k / sqrt(d)) with the Sigma = M^T M in use (the
//                 whitening Lambda^-1 or a given one) and the same temperature 1/sqrt(d) (Farzam et al. 2026,
//                 "Data-aware random feature kernel for transformers", Eq. 3, with x = d^-1/4 q).
#include <Eigen/Dense>

#include <string>

#include "graphrf/attention/feature_map.hpp"

namespace graphrf {

struct FeatureKernel {
  bool exponential = false;  // exp(q^T S k) (favor, trig, dark); otherwise phi(q)^T phi(k)
  Eigen::MatrixXd sigma;     // dark: Sigma (d x d); empty for the softmax kernel (Sigma = I)
  int d = 1;                 // input dimension: the temperature is 1/sqrt(d), S = Sigma / sqrt(d)
  std::string name;          // e.g. "exp(q^T Sigma k / sqrt(d))", for the log and the HDF5 attribute
};

// The kernel `map` estimates.
FeatureKernel feature_kernel(const FeatureMap& map);

// The logits l_ij = q_i^T Sigma k_j / sqrt(d) of an exponential kernel (n_q x n_k; rows of q and k are
// the unscaled inputs). std::logic_error for a deterministic kernel.
Eigen::MatrixXd kernel_logits(const FeatureKernel& kernel, const Eigen::MatrixXd& q, const Eigen::MatrixXd& k);

// Dense scores kappa(q_i, k_j) up to a positive factor per row (exponentials are shifted by their row's
// largest logit, which cancels in attention): exp(l_ij - max_j l_ij), or phi_q phi_k^T for the deterministic
// maps (phi_q, phi_k are their features; unused for the exponential kernels).
Eigen::MatrixXd kernel_scores(const FeatureKernel& kernel, const Eigen::MatrixXd& q, const Eigen::MatrixXd& k,
                              const Eigen::MatrixXd& phi_q, const Eigen::MatrixXd& phi_k);

}  // namespace graphrf
