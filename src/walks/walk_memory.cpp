#include "graphrf/walks/walk_memory.hpp"

#include <cmath>

namespace graphrf {

double estimate_walk_bytes(const DistributedGraph& g, const WalkOptions& options) {
  constexpr double kBytesPerArc = 24, kBytesPerNode = 16, kBytesPerDeposit = 24 + 24;
  const double p = options.p_halt;
  const double deposits_per_walk = (1 - std::pow(1 - p, static_cast<double>(options.max_length) + 1)) / p;
  const auto nodes = static_cast<double>(g.n_local());
  const auto arcs = static_cast<double>(g.row_ptr.empty() ? 0 : g.row_ptr.back());
  return kBytesPerArc * arcs + kBytesPerNode * nodes +
         kBytesPerDeposit * nodes * static_cast<double>(options.walkers) * deposits_per_walk;
}

}  // namespace graphrf
