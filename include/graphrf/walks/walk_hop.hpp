#pragma once
// One hop of a halting random walk, as a pure function of the walker's identity (Reid et al. 2025a, "Linear
// transformer topological masking with graph random features", §3.3; antithetic termination: Reid, Choromanski,
// Weller 2023, "Quasi-Monte Carlo graph random features"; sigma-coupled lengths: Reid et al. 2025b,
// "Variance-reducing couplings for random features", §4.1; repelling walks: Reid, Berger, Choromanski,
// Weller 2024, "Repelling random walks", §3).
// Every draw is keyed by (seed, original id of the start node, walker, step, ensemble), so a walk is the
// same whichever rank simulates it. Before every hop the walker halts with probability p; under antithetic
// coupling walkers k and k + n/2 share a uniform tau per step (their pair's stream) and use tau and
// (tau + 1/2) mod 1, so for p <= 1/2 they never halt on the same step while their marginals stay geometric.
// Under sigma coupling the pair's lengths are fixed at the start (sigma_pair_lengths) and the walker halts
// when it reaches its length.
//
// The words come from walker_streams.hpp, fixed lengths and the coupling tests from termination_couplings.hpp;
// repelling packs spread their walkers with repelling_packs.hpp.
#include <cmath>
#include <cstdint>

#include "graphrf/core/counter_rng.hpp"
#include "graphrf/walks/termination_couplings.hpp"
#include "graphrf/walks/walk_options.hpp"
#include "graphrf/walks/walker_streams.hpp"

namespace graphrf {

struct WalkDraw {
  bool halt;             // stop before this hop
  std::uint64_t choice;  // 64 random bits for choosing the neighbour
};

// Halting and choosing from one uniform 64-bit word w (iid coupling): the walker halts when w < H = p 2^64,
// which has probability p up to 2^-64; otherwise w - H is uniform on [0, 2^64 - H) and is stretched by
// 1 / (1 - p) onto [0, 2^64) as the choice bits, independent of the halting decision. The stretch factor is
// S = 2^128 / (2^64 - H) rounded down, in 64.64 fixed point, so choices stay below 2^64; a neighbour of a node
// of degree d is then picked by an interval of (2^64 - H) / d words, give or take four (relative error
// 4d 2^-64 / (1 - p) at most).
class IidStep {
 public:
  explicit IidStep(double p) {
    halt_below_ = p > 0 ? static_cast<std::uint64_t>(std::ldexp(p, 64)) : 0;
    const Uint128 range = (Uint128{1} << 64) - halt_below_;
    const Uint128 stretch = ~Uint128{0} / range;
    whole_ = static_cast<std::uint64_t>(stretch >> 64);
    fraction_ = static_cast<std::uint64_t>(stretch);
  }
  bool halts(std::uint64_t word) const { return word < halt_below_; }
  std::uint64_t choice(std::uint64_t word) const {
    const std::uint64_t x = word - halt_below_;
    return x * whole_ + static_cast<std::uint64_t>((static_cast<Uint128>(x) * fraction_) >> 64);
  }

 private:
  std::uint64_t halt_below_ = 0, whole_ = 0, fraction_ = 0;
};

// The walker's stream, derived on first use.
__attribute__((always_inline)) inline const WalkerStream& stream_of(const WalkOptions& o, std::int64_t start_id,
                                                                    std::int64_t walker, WalkerDraws& draws) {
  if (!draws.stream.ready()) [[unlikely]] draws.stream = walker_stream(o, start_id, walker);
  return draws.stream;
}

// The walker's word at step `step`.
__attribute__((always_inline)) inline std::uint64_t step_word(const WalkOptions& o, std::int64_t start_id, std::int64_t walker,
                                                              std::int64_t step, WalkerDraws& draws) {
  return stream_of(o, start_id, walker, draws).word(step);
}

// Whether the walker halts before hop `step`. Under iid termination the step's word also holds its choice
// (IidStep); under the other couplings the choice word is left for choice_word, so a walker that halts, or
// whose neighbour comes from a repelling group, never computes it.
__attribute__((always_inline)) inline bool halts(const WalkOptions& o, const IidStep& iid, std::int64_t start_id, std::int64_t walker,
                  std::int64_t step, WalkerDraws& cache) {
  const WalkerStream& stream = stream_of(o, start_id, walker, cache);
  if (has_fixed_lengths(o)) {  // length drawn once
    if (cache.length < 0) cache.length = fixed_walk_length(o, start_id, walker, stream);
    return step >= cache.length;
  }
  if (termination_of(o.coupling) == Termination::iid) return iid.halts(stream.word(step));
  // Antithetic: the pair's tau at this step, from the pair's stream.
  const std::int64_t half = o.walkers / 2;
  double tau = unit_uniform(pair_stream(stream, walker, o.walkers, walker % half).word(step));
  if (walker >= half) {  // (tau + 1/2) mod 1: tau + 1/2 < 1.5, so one exact subtraction (no fmod call)
    tau += 0.5;
    if (tau >= 1.0) tau -= 1.0;
  }
  return tau < o.halt_probability();
}

// The 64 bits that choose the neighbour at hop `step` of a walker that did not halt there: under iid
// termination the step's word stretched past the halting range (IidStep), otherwise the step's word.
__attribute__((always_inline)) inline std::uint64_t choice_word(const WalkOptions& o, const IidStep& iid, std::int64_t start_id, std::int64_t walker,
                                 std::int64_t step, WalkerDraws& cache) {
  const std::uint64_t word = step_word(o, start_id, walker, step, cache);
  return iid_steps(o) ? iid.choice(word) : word;
}

__attribute__((always_inline)) inline WalkDraw draw_hop(const WalkOptions& o, const IidStep& iid, std::int64_t start_id, std::int64_t walker,
                         std::int64_t step, WalkerDraws& cache) {
  if (halts(o, iid, start_id, walker, step, cache)) return {true, 0};  // a halting step draws no neighbour
  return {false, choice_word(o, iid, start_id, walker, step, cache)};
}

// The same draw without a cache (tests, serial references).
inline WalkDraw draw_hop(const WalkOptions& o, std::int64_t start_id, std::int64_t walker, std::int64_t step) {
  WalkerDraws fresh;
  return draw_hop(o, IidStep(o.halt_probability()), start_id, walker, step, fresh);
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
