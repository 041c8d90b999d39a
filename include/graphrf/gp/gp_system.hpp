#pragma once
// The linear system of GP regression on the training nodes x: A = Phi_x Phi_x^T + sigma_n^2 I.
// CG runs in the training space: blocks hold this rank's training rows only (TrainingSpace::compress), and
// their dot products are reproducible sums over the training nodes alone, keyed by each node's position among
// all training nodes in canonical order. With 10% of the nodes observed, every vector operation and every
// reduction of a CG step then touches a tenth of the rows it would over all nodes. One product
// V -> Phi_x (Phi_x^T V) + sigma_n^2 V costs two passes over the GRF nonzeros of the rows in phi's subset S
// and two row fetches; with S = the training nodes (GrfFeatureOperator::restrict_rows) that is all it needs.
#include <Eigen/Dense>
#include <cstdint>
#include <memory>
#include <vector>

#include "graphrf/mpi/reproducible_sum.hpp"

#include "graphrf/gp/batched_conjugate_gradient.hpp"
#include "graphrf/gp/grf_feature_operator.hpp"

namespace graphrf {

// This rank's training rows and the reproducible sums over all ranks' training rows.
class TrainingSpace {
 public:
  // Collective. train: 1 at this rank's training nodes, 0 elsewhere (n_local entries).
  TrainingSpace(const DistributedGraph& g, const Eigen::VectorXd& train);
  // The training rows of a block over this rank's nodes (n_local x b -> n_train_local x b), and back (zeros
  // elsewhere).
  Eigen::MatrixXd compress(const Eigen::MatrixXd& full) const;
  Eigen::MatrixXd expand(const Eigen::MatrixXd& compact) const;
  const RowBlockReducer& reducer() const { return *reducer_; }

 private:
  std::int64_t n_local_nodes_ = 0;
  std::vector<std::int64_t> rows_;  // local indices of the training nodes, ascending
  std::unique_ptr<RowBlockReducer> reducer_;
};

// Observations on this rank's nodes (local order).
struct GpData {
  Eigen::VectorXd y;      // observed value at training nodes, 0 elsewhere
  Eigen::VectorXd train;  // 1 at training nodes, 0 elsewhere
  std::int64_t n_train = 0;  // over all ranks
  // Built from train by attach_training_space; estimate_lml and predict_gp build one per call without it.
  std::shared_ptr<const TrainingSpace> space;
};

// Collective: data.space for data.train.
void attach_training_space(const DistributedGraph& g, GpData& data);
// data.space, or a new one if none is attached. Collective.
std::shared_ptr<const TrainingSpace> training_space(const DistributedGraph& g, const GpData& data);

// Unit vectors of the nodes where mask != 0, one column each, in canonical order (n_local x count). Collective.
Eigen::MatrixXd unit_vector_block(const DistributedGraph& g, const Eigen::VectorXd& mask);

// A on blocks of the training space (n_train_local x b).
BlockOperator gp_system(const GrfFeatureOperator& phi, const TrainingSpace& space, double sigma_n);

}  // namespace graphrf
