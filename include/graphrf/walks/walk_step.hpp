#pragma once
// One hop of a halting random walk, as a pure function of the walker's identity (Reid et al. 2025a, "Linear
// transformer topological masking with graph random features", §3.3; antithetic termination: Reid, Choromanski,
// Weller 2023, "Quasi-Monte Carlo graph random features").
// Every draw is keyed by (seed, original id of the start node, walker, step, ensemble), so a walk is the
// same whichever rank simulates it. Before every hop the walker halts with probability p; under antithetic
// coupling walkers k and k + n/2 share a uniform tau per step and use tau and (tau + 1/2) mod 1, so for
// p <= 1/2 they never halt on the same step while their marginals stay geometric.
#include <array>
#include <cmath>
#include <cstdint>

#include "graphrf/core/counter_rng.hpp"
#include "graphrf/walks/walk_options.hpp"

namespace graphrf {

struct WalkDraw {
  bool halt;             // stop before this hop
  std::uint64_t choice;  // 64 random bits for choosing the neighbour
};

// One Philox call yields four words. Under iid coupling a block serves two steps (halting word and
// choice word per step); under antithetic coupling a pair's termination block and the walker's choice
// block each serve four steps. Walkers keep the current blocks to make one call per two or four hops.
struct HopBlocks {
  std::int64_t index = -1;  // step / steps_per_block of the cached blocks
  std::array<std::uint64_t, 4> step_words{}, halt_words{};
};

inline WalkDraw draw_hop(const WalkOptions& o, std::int64_t start_id, std::int64_t walker, std::int64_t step,
                         HopBlocks& cache) {
  const auto id = static_cast<std::uint64_t>(start_id);
  if (o.coupling == Coupling::iid) {
    const std::int64_t block = step >> 1;
    if (cache.index != block) {
      cache.step_words = philox_block(o.seed, RngDomain::walk_step, id, static_cast<std::uint64_t>(walker),
                                      static_cast<std::uint64_t>(block), o.ensemble);
      cache.index = block;
    }
    const auto word = static_cast<size_t>(2 * (step & 1));
    return {unit_uniform(cache.step_words[word]) < o.p_halt, cache.step_words[word + 1]};
  }
  const std::int64_t block = step >> 2;
  const std::int64_t half = o.walkers / 2;
  if (cache.index != block) {
    cache.halt_words = philox_block(o.seed, RngDomain::walk_halt, id, static_cast<std::uint64_t>(walker % half),
                                    static_cast<std::uint64_t>(block), o.ensemble);
    cache.step_words = philox_block(o.seed, RngDomain::walk_step, id, static_cast<std::uint64_t>(walker),
                                    static_cast<std::uint64_t>(block), o.ensemble);
    cache.index = block;
  }
  const auto word = static_cast<size_t>(step & 3);
  double tau = unit_uniform(cache.halt_words[word]);
  if (walker >= half) tau = std::fmod(tau + 0.5, 1.0);
  return {tau < o.p_halt, cache.step_words[word]};
}

// The same draw without a cache (tests, serial references).
inline WalkDraw draw_hop(const WalkOptions& o, std::int64_t start_id, std::int64_t walker, std::int64_t step) {
  HopBlocks fresh;
  return draw_hop(o, start_id, walker, step, fresh);
}

// Index of the neighbour picked with probability weight/sum among `cumulative` (inclusive prefix sums).
inline std::int64_t pick_weighted(const double* cumulative, std::int64_t n, std::uint64_t bits) {
  const double target = unit_uniform(bits) * cumulative[n - 1];
  std::int64_t lo = 0, hi = n - 1;
  while (lo < hi) {
    const std::int64_t mid = (lo + hi) / 2;
    if (cumulative[mid] > target) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

}  // namespace graphrf
