#include "graphrf/gp/gp_system.hpp"

#include <algorithm>

namespace graphrf {

namespace {
// Canonical indices of the nodes where mask != 0 on every rank, sorted (each rank learns all of them: 8 bytes
// per masked node). A node's position in this list is its key among the masked nodes.
std::vector<std::int64_t> all_masked_canonical(const DistributedGraph& g, const Eigen::VectorXd& mask) {
  const Communicator& comm = *g.comm;
  std::vector<std::int64_t> mine;
  for (std::int64_t i = 0; i < g.n_local(); ++i)
    if (mask(i) != 0) mine.push_back(g.canonical_index[static_cast<size_t>(i)]);
  std::vector<std::int64_t> send;
  for (int r = 0; r < comm.size(); ++r) send.insert(send.end(), mine.begin(), mine.end());
  std::vector<std::int64_t> all =
      comm.alltoallv(send, Counts(static_cast<size_t>(comm.size()), static_cast<std::int64_t>(mine.size())));
  std::sort(all.begin(), all.end());
  return all;
}

std::int64_t position(const std::vector<std::int64_t>& sorted, std::int64_t value) {
  return std::lower_bound(sorted.begin(), sorted.end(), value) - sorted.begin();
}
}  // namespace

Eigen::MatrixXd unit_vector_block(const DistributedGraph& g, const Eigen::VectorXd& mask) {
  const std::vector<std::int64_t> all = all_masked_canonical(g, mask);
  Eigen::MatrixXd z = Eigen::MatrixXd::Zero(g.n_local(), static_cast<Eigen::Index>(all.size()));
  for (std::int64_t i = 0; i < g.n_local(); ++i)
    if (mask(i) != 0) z(i, position(all, g.canonical_index[static_cast<size_t>(i)])) = 1.0;
  return z;
}

TrainingSpace::TrainingSpace(const DistributedGraph& g, const Eigen::VectorXd& train) : n_local_nodes_(g.n_local()) {
  // Key of a training node: its position among all training nodes in canonical order.
  const std::vector<std::int64_t> all = all_masked_canonical(g, train);
  std::vector<std::int64_t> keys;
  for (std::int64_t i = 0; i < n_local_nodes_; ++i)
    if (train(i) != 0) {
      rows_.push_back(i);
      keys.push_back(position(all, g.canonical_index[static_cast<size_t>(i)]));
    }
  reducer_ = std::make_unique<RowBlockReducer>(*g.comm, static_cast<std::int64_t>(all.size()), keys);
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
