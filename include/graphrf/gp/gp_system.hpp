#pragma once
// The linear system of GP regression on the training nodes x: A = Phi_x Phi_x^T + sigma_n^2 I, applied to
// blocks over all of this rank's nodes that are zero off the training nodes (and stay so): V -> mask (Phi
// (Phi^T V)) + sigma_n^2 V. One product costs two passes over the GRF nonzeros and two row fetches.
#include <Eigen/Dense>
#include <cstdint>

#include "graphrf/gp/batched_conjugate_gradient.hpp"
#include "graphrf/gp/grf_feature_operator.hpp"

namespace graphrf {

// Observations on this rank's nodes (local order).
struct GpData {
  Eigen::VectorXd y;      // observed value at training nodes, 0 elsewhere
  Eigen::VectorXd train;  // 1 at training nodes, 0 elsewhere
  std::int64_t n_train = 0;  // over all ranks
};

// Unit vectors of the nodes where mask != 0, one column each, in canonical order (n_local x count). Collective.
Eigen::MatrixXd unit_vector_block(const DistributedGraph& g, const Eigen::VectorXd& mask);

BlockOperator gp_system(const GrfFeatureOperator& phi, const GpData& data, double sigma_n);

}  // namespace graphrf
