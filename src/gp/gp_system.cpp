#include "graphrf/gp/gp_system.hpp"

#include <algorithm>

namespace graphrf {

Eigen::MatrixXd unit_vector_block(const DistributedGraph& g, const Eigen::VectorXd& mask) {
  const Communicator& comm = *g.comm;
  const std::int64_t n_local = g.n_local();
  // Every rank learns the canonical indices of all masked nodes.
  std::vector<std::int64_t> mine;
  for (std::int64_t i = 0; i < n_local; ++i)
    if (mask(i) != 0) mine.push_back(g.canonical_index[static_cast<size_t>(i)]);
  std::vector<std::int64_t> send;
  for (int r = 0; r < comm.size(); ++r) send.insert(send.end(), mine.begin(), mine.end());
  std::vector<std::int64_t> all =
      comm.alltoallv(send, Counts(static_cast<size_t>(comm.size()), static_cast<std::int64_t>(mine.size())));
  std::sort(all.begin(), all.end());
  Eigen::MatrixXd z = Eigen::MatrixXd::Zero(n_local, static_cast<Eigen::Index>(all.size()));
  for (std::int64_t i = 0; i < n_local; ++i)
    if (mask(i) != 0)
      z(i, std::lower_bound(all.begin(), all.end(), g.canonical_index[static_cast<size_t>(i)]) - all.begin()) = 1.0;
  return z;
}

TrainingSpace::TrainingSpace(const DistributedGraph& g, const Eigen::VectorXd& train) : n_local_nodes_(g.n_local()) {
  const Communicator& comm = *g.comm;
  std::vector<std::int64_t> mine;  // canonical indices of this rank's training nodes
  for (std::int64_t i = 0; i < n_local_nodes_; ++i)
    if (train(i) != 0) {
      rows_.push_back(i);
      mine.push_back(g.canonical_index[static_cast<size_t>(i)]);
    }
  // Key of a training node: its position among all training nodes in canonical order (every rank learns the
  // canonical indices of all of them: 8 bytes per training node).
  std::vector<std::int64_t> send;
  for (int r = 0; r < comm.size(); ++r) send.insert(send.end(), mine.begin(), mine.end());
  std::vector<std::int64_t> all =
      comm.alltoallv(send, Counts(static_cast<size_t>(comm.size()), static_cast<std::int64_t>(mine.size())));
  send = {};
  std::sort(all.begin(), all.end());
  std::vector<std::int64_t> keys(mine.size());
  for (size_t k = 0; k < mine.size(); ++k) keys[k] = std::lower_bound(all.begin(), all.end(), mine[k]) - all.begin();
  reducer_ = std::make_unique<RowBlockReducer>(comm, static_cast<std::int64_t>(all.size()), keys);
}

Eigen::MatrixXd TrainingSpace::compress(const Eigen::MatrixXd& full) const {
  Eigen::MatrixXd out(static_cast<Eigen::Index>(rows_.size()), full.cols());
  for (size_t k = 0; k < rows_.size(); ++k) out.row(static_cast<Eigen::Index>(k)) = full.row(rows_[k]);
  return out;
}

Eigen::MatrixXd TrainingSpace::expand(const Eigen::MatrixXd& compact) const {
  Eigen::MatrixXd out = Eigen::MatrixXd::Zero(n_local_nodes_, compact.cols());
  for (size_t k = 0; k < rows_.size(); ++k) out.row(rows_[k]) = compact.row(static_cast<Eigen::Index>(k));
  return out;
}

void attach_training_space(const DistributedGraph& g, GpData& data) {
  data.space = std::make_shared<const TrainingSpace>(g, data.train);
}

std::shared_ptr<const TrainingSpace> training_space(const DistributedGraph& g, const GpData& data) {
  return data.space ? data.space : std::make_shared<const TrainingSpace>(g, data.train);
}

BlockOperator gp_system(const GrfFeatureOperator& phi, const TrainingSpace& space, double sigma_n) {
  const double noise = sigma_n * sigma_n;
  return [&phi, &space, noise](const Eigen::MatrixXd& v) -> Eigen::MatrixXd {
    Eigen::MatrixXd out = space.compress(phi.subset_times(phi.transpose_times(space.expand(v))));
    out += noise * v;
    return out;
  };
}

}  // namespace graphrf
