#include "graphrf/walks/walk_baseline.hpp"

#include <array>
#include <cstddef>

#include "graphrf/core/counter_rng.hpp"

namespace graphrf {

namespace {
// xorshift64*: a few cycles per draw, so the loops measure memory, not the generator.
struct FastRng {
  std::uint64_t state;
  std::uint64_t next() {
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return state * 0x2545F4914F6CDD1DULL;
  }
};
inline std::uint64_t below(std::uint64_t bits, std::uint64_t n) {
  return static_cast<std::uint64_t>((static_cast<Uint128>(bits) * n) >> 64);
}
}  // namespace

std::int64_t baseline_walks_one_at_a_time(const CsrView& g, std::int64_t walkers, double p_halt, std::uint64_t seed) {
  FastRng rng{seed | 1};
  const auto halt_below = static_cast<std::uint64_t>(p_halt * 18446744073709551616.0);
  std::int64_t hops = 0;
  for (std::int64_t u = 0; u < g.n; ++u)
    for (std::int64_t k = 0; k < walkers; ++k) {
      std::int64_t v = u;
      while (rng.next() >= halt_below) {
        const std::int64_t begin = g.row_ptr[v], deg = g.row_ptr[v + 1] - begin;
        if (deg == 0) break;
        v = g.col[begin + static_cast<std::int64_t>(below(rng.next(), static_cast<std::uint64_t>(deg)))];
        ++hops;
      }
    }
  return hops;
}

std::int64_t baseline_walks_interleaved(const CsrView& g, std::int64_t walkers, double p_halt, std::uint64_t seed,
                                        int lanes) {
  FastRng rng{seed | 1};
  const auto halt_below = static_cast<std::uint64_t>(p_halt * 18446744073709551616.0);
  std::vector<std::int64_t> at(static_cast<std::size_t>(lanes), -1);
  std::int64_t next_start = 0, hops = 0;
  const std::int64_t total = g.n * walkers;
  int live = 0;
  auto refill = [&](std::size_t lane) {
    if (next_start >= total) {
      at[lane] = -1;
      return;
    }
    at[lane] = next_start++ / walkers;
    __builtin_prefetch(&g.row_ptr[at[lane]]);
    ++live;
  };
  for (std::size_t lane = 0; lane < at.size(); ++lane) refill(lane);
  while (live > 0) {
    for (std::size_t lane = 0; lane < at.size(); ++lane) {
      const std::int64_t v = at[lane];
      if (v < 0) continue;
      const std::int64_t begin = g.row_ptr[v], deg = g.row_ptr[v + 1] - begin;
      if (rng.next() < halt_below || deg == 0) {
        --live;
        refill(lane);
        continue;
      }
      const std::int64_t u = g.col[begin + static_cast<std::int64_t>(below(rng.next(), static_cast<std::uint64_t>(deg)))];
      __builtin_prefetch(&g.row_ptr[u]);
      at[lane] = u;
      ++hops;
    }
  }
  return hops;
}

}  // namespace graphrf
