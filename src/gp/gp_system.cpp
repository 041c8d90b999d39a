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

BlockOperator gp_system(const GrfFeatureOperator& phi, const GpData& data, double sigma_n) {
  const double noise = sigma_n * sigma_n;
  return [&phi, &data, noise](const Eigen::MatrixXd& v) -> Eigen::MatrixXd {
    Eigen::MatrixXd out = phi.times(phi.transpose_times(v));
    out.array().colwise() *= data.train.array();
    out += noise * v;
    return out;
  };
}

}  // namespace graphrf
