#include "graphrf/reference/node_sample.hpp"

#include <algorithm>
#include <set>

#include "graphrf/core/counter_rng.hpp"

namespace graphrf {

std::vector<std::int64_t> sample_node_indices(std::int64_t n, std::int64_t count, std::uint64_t seed) {
  count = std::clamp<std::int64_t>(count, 0, n);
  std::set<std::int64_t> chosen;
  // Floyd: for j = n - count .. n - 1 draw t uniform in [0, j]; take t, or j if t is already taken.
  for (std::int64_t j = n - count; j < n; ++j) {
    const auto bits = philox_block(seed, RngDomain::reference_sample, static_cast<std::uint64_t>(j))[0];
    const auto t = static_cast<std::int64_t>(unit_uniform(bits) * static_cast<double>(j + 1));
    chosen.insert(chosen.count(std::min(t, j)) ? j : std::min(t, j));
  }
  return {chosen.begin(), chosen.end()};
}

}  // namespace graphrf
