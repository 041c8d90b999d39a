#include "graphrf/grf/spectral_radius.hpp"

#include <cmath>

#include "graphrf/walks/load_factors.hpp"

namespace graphrf {

void multiply_w(const DistributedGraph& g, const WalkOptions& options, std::span<const std::int64_t> source,
                const std::vector<double>& x, std::vector<double>& y) {
  std::vector<double> ghost(g.ghosts.size());
  g.ghost_exchange.exchange<double>(x, ghost, 1, g.hosts);
  y.assign(static_cast<size_t>(g.n_local()), 0.0);
  for (std::int64_t i = 0; i < g.n_local(); ++i) {
    double sum = 0;
    for (auto k = g.row_ptr[static_cast<size_t>(i)]; k < g.row_ptr[static_cast<size_t>(i) + 1]; ++k) {
      const auto kk = static_cast<size_t>(k);
      const auto s = source[kk];
      const double w = options.weights == WeightMode::normalized ? g.normalized_weight[kk]
                       : options.weights == WeightMode::raw      ? options.scale * g.weight[kk]
                                                                 : g.weight[kk] / options.max_degree;
      sum += w * (s >= 0 ? x[static_cast<size_t>(s)] : ghost[static_cast<size_t>(-1 - s)]);
    }
    // The combinatorial walk matrix's self-loop, W_ii = (d_max - d_i) / d_max.
    const double loop = combinatorial_self_loop(options, g.degree[static_cast<size_t>(i)]);
    if (loop > 0.0) sum += loop / options.max_degree * x[static_cast<size_t>(i)];
    y[static_cast<size_t>(i)] = sum;
  }
}

double spectral_radius(const DistributedGraph& g, const WalkOptions& options) {
  // The normalised adjacency has rho = 1 (for a graph with edges); the combinatorial W = I - (D - A) / d_max is
  // nonnegative and symmetric with every row summing to 1, so rho = 1 exactly.
  if (options.weights != WeightMode::raw) return 1.0;
  const Communicator& comm = *g.comm;
  const std::vector<std::int64_t> source = g.arc_sources();
  std::vector<double> x(static_cast<size_t>(g.n_local()), 1.0), y;
  double estimate = 0;
  for (int it = 0; it < 200; ++it) {
    multiply_w(g, options, source, x, y);
    double yy = 0, xx = 0;
    for (size_t i = 0; i < y.size(); ++i) {
      yy += y[i] * y[i];
      xx += x[i] * x[i];
    }
    yy = comm.sum(yy);
    xx = comm.sum(xx);
    if (yy == 0) return 0.0;
    const double next = std::sqrt(yy / xx);
    const bool converged = std::abs(next - estimate) <= 1e-6 * next;
    estimate = next;
    const double inv = 1.0 / std::sqrt(yy);
    for (size_t i = 0; i < y.size(); ++i) x[i] = y[i] * inv;
    if (converged) break;
  }
  return estimate * 1.01;
}

}  // namespace graphrf
