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
// A walker's per-step words come from its start node's SplitMix64 stream (Steele, Lea, Flood 2014, "Fast
// splittable pseudorandom number generators"): one Philox block keyed by (seed, start id / 4, ensemble) serves
// ids 4j .. 4j + 3, each node's seed is its word of the block and their odd increment gamma is mixed from the
// block, and the word of walker k at step t is mix64(seed + (k 2^20 + t + 1) gamma), the stream's output at
// position k 2^20 + t + 1. Walkers read disjoint stretches of their node's stream (steps stay below 2^20), and
// the nodes of different blocks have different increments, so no two walkers share a run of words (see
// root_block_gamma for nodes of one block). A word costs three multiplications, where a Philox block (four
// steps) costs twenty; the n walkers of four nodes share one Philox call.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "graphrf/core/counter_rng.hpp"
#include "graphrf/walks/walk_options.hpp"

namespace graphrf {

struct WalkDraw {
  bool halt;             // stop before this hop
  std::uint64_t choice;  // 64 random bits for choosing the neighbour
};

// The SplitMix64 output function (Stafford's "variant 13" of the MurmurHash3 finaliser), as in SplitMix64.
__attribute__((always_inline)) inline std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// An odd Weyl increment with enough bit transitions (SplittableRandom's rule: fewer than 24 transitions between
// adjacent bits make a weak increment, so those are flipped into strong ones). Once per start node.
inline std::uint64_t mix_gamma(std::uint64_t z) {
  z = (z ^ (z >> 33)) * 0xff51afd7ed558ccdULL;
  z = (z ^ (z >> 33)) * 0xc4ceb9fe1a85ec53ULL;
  z = (z ^ (z >> 33)) | 1ULL;
  // Bits set in z ^ (z >> 1), counted in place (the generic x86-64 build has no popcount instruction, and
  // std::popcount there is a library call).
  std::uint64_t t = z ^ (z >> 1);
  t -= (t >> 1) & 0x5555555555555555ULL;
  t = (t & 0x3333333333333333ULL) + ((t >> 2) & 0x3333333333333333ULL);
  t = (t + (t >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
  const auto transitions = (t * 0x0101010101010101ULL) >> 56;
  return transitions < 24 ? z ^ 0xaaaaaaaaaaaaaaaaULL : z;
}

// One walker's random words: word(t) serves step t (halting and the neighbour under iid termination, the
// neighbour under the other couplings).
struct WalkerStream {
  std::uint64_t base = 0, gamma = 0;  // gamma == 0: not derived yet (increments are odd)
  bool ready() const { return gamma != 0; }
  __attribute__((always_inline)) std::uint64_t word(std::int64_t step) const {
    return mix64(base + static_cast<std::uint64_t>(step + 1) * gamma);
  }
};

// Steps, and so a walker's stretch of its node's stream, stay below 2^20 (validate caps max_length).
constexpr int kWalkerStreamBits = 20;

// The Philox block behind the streams of four start nodes: ids 4j .. 4j + 3 share block j, one word each.
inline std::array<std::uint64_t, 4> start_node_root_block(const WalkOptions& o, std::int64_t start_id) {
  return philox_block(o.seed, RngDomain::walk_step, static_cast<std::uint64_t>(start_id) >> 2, o.ensemble);
}

// The increment the four start nodes of a root block share, mixed from the block's last word. (Four nodes with
// one increment and independent seeds: their walkers' stretches coincide only if two seeds differ by a small
// multiple of it, with probability below 2^-38 per block for 2^20 walkers per node.)
inline std::uint64_t root_block_gamma(const std::array<std::uint64_t, 4>& root_block) {
  return mix_gamma(root_block[3] + 0x9e3779b97f4a7c15ULL);
}

// A start node's stream: its seed is its word of the root block, its increment the block's.
class StartNodeStreams {
 public:
  StartNodeStreams() = default;
  StartNodeStreams(std::uint64_t seed, std::uint64_t gamma) : seed_(seed), gamma_(gamma) {}
  StartNodeStreams(const WalkOptions& o, std::int64_t start_id) {
    const auto block = start_node_root_block(o, start_id);
    seed_ = block[static_cast<size_t>(start_id & 3)];
    gamma_ = root_block_gamma(block);
  }
  __attribute__((always_inline)) WalkerStream walker(std::int64_t k) const {
    return {seed_ + (static_cast<std::uint64_t>(k) << kWalkerStreamBits) * gamma_, gamma_};
  }

 private:
  std::uint64_t seed_ = 0, gamma_ = 0;
};

// Streams of start nodes taken in ascending id order: consecutive ids share their root block (one Philox
// call and one increment for four nodes).
class StartNodeRoots {
 public:
  explicit StartNodeRoots(const WalkOptions& o) : o_(&o) {}
  StartNodeStreams operator()(std::int64_t start_id) {
    const auto key = static_cast<std::uint64_t>(start_id) >> 2;
    if (key != key_ || !valid_) {
      block_ = start_node_root_block(*o_, start_id);
      gamma_ = root_block_gamma(block_);
      key_ = key;
      valid_ = true;
    }
    return StartNodeStreams(block_[static_cast<size_t>(start_id & 3)], gamma_);
  }

 private:
  const WalkOptions* o_;
  std::array<std::uint64_t, 4> block_{};
  std::uint64_t gamma_ = 0, key_ = 0;
  bool valid_ = false;
};

inline WalkerStream walker_stream(const WalkOptions& o, std::int64_t start_id, std::int64_t walker) {
  return StartNodeStreams(o, start_id).walker(walker);
}

// The stream of pair `pair` of a node's n walkers (walkers pair and pair + n/2: antithetic taus, sigma's pair
// draw): the node's stream read as a walker n + pair would read it, a stretch no walker reads. Found from any
// walker's stream of the node, without its root.
inline WalkerStream pair_stream(const WalkerStream& walker_stream, std::int64_t walker, std::int64_t walkers,
                                std::int64_t pair) {
  const auto ahead = static_cast<std::uint64_t>(walkers + pair - walker) << kWalkerStreamBits;
  return {walker_stream.base + ahead * walker_stream.gamma, walker_stream.gamma};
}

// What a walker keeps for its draws: its stream (derived on first use) and, under fixed lengths, its length.
struct WalkerDraws {
  WalkerStream stream;
  std::int64_t length = -1;      // fixed-length walks: the walker's length, once drawn
  void forget() {  // for a new walker
    stream.gamma = 0;
    length = -1;
  }
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

// Geometric(p) quantile function on {0, 1, ...}: F^-1(u) = floor(ln(1 - u) / ln(1 - p)), capped far above
// any max_length.
inline std::int64_t geometric_quantile_of_log(double u, double log_keep) {  // log_keep = ln(1 - p)
  const double k = std::floor(std::log1p(-u) / log_keep);
  return k < 1e15 ? static_cast<std::int64_t>(k) : std::int64_t{1000000000000000};
}
inline std::int64_t geometric_quantile(double u, double p) { return geometric_quantile_of_log(u, std::log1p(-p)); }

// Sigma coupling (Reid et al. 2025b, "Variance-reducing couplings for random features", §4.1, App. C.3):
// walkers k and k + n/2 of a start node form pair k, whose draw (q, V1, V2) is the first three words of the
// pair's stream (pair_stream): q uniform in 0..m-1, u1 = (q + V1)/m, u2 = (sigma(q) + V2)/m, lengths F^-1(u1)
// and F^-1(u2). Both u are uniform on [0, 1), so each length is exactly Geometric(p); sigma only matches their
// quantiles. With o.quantile >= 0 (learning sigma) every walker's u is instead uniform in quantile o.quantile.
struct PairLengths {
  std::int64_t first, second;  // of walkers pair and pair + n/2
};

// Both lengths of a sigma pair from its stream (what each walker alone would draw; the engine runs a node's
// walkers in order and hands the second length to walker pair + n/2). `log_keep` is ln(1 - p), which callers
// drawing many pairs compute once.
inline PairLengths sigma_pair_lengths(const WalkOptions& o, const WalkerStream& pair, double log_keep) {
  const auto m = static_cast<std::uint64_t>(o.sigma.size());
  const auto q = static_cast<std::int64_t>(uniform_below(pair.word(0), m));
  const double u1 = (static_cast<double>(q) + unit_uniform(pair.word(1))) / static_cast<double>(m);
  const double u2 = (o.sigma[static_cast<size_t>(q)] + unit_uniform(pair.word(2))) / static_cast<double>(m);
  return {geometric_quantile_of_log(u1, log_keep), geometric_quantile_of_log(u2, log_keep)};
}
inline PairLengths sigma_pair_lengths(const WalkOptions& o, std::int64_t start_id, std::int64_t pair) {
  return sigma_pair_lengths(o, StartNodeStreams(o, start_id).walker(o.walkers + pair), std::log1p(-o.p_halt));
}

// The length of a walker under fixed lengths (sigma pairs, or one quantile of Geometric(p) when learning sigma).
inline std::int64_t fixed_walk_length(const WalkOptions& o, std::int64_t start_id, std::int64_t walker,
                                      const WalkerStream& stream) {
  if (o.quantile >= 0) {
    const auto w = philox_block(o.seed, RngDomain::walk_length, static_cast<std::uint64_t>(start_id),
                                static_cast<std::uint64_t>(walker), o.ensemble, 1);
    return geometric_quantile((o.quantile + unit_uniform(w[0])) / o.quantile_order, o.p_halt);
  }
  const std::int64_t half = o.walkers / 2;
  const PairLengths pair = sigma_pair_lengths(o, pair_stream(stream, walker, o.walkers, walker % half), std::log1p(-o.p_halt));
  return walker < half ? pair.first : pair.second;
}
inline std::int64_t fixed_walk_length(const WalkOptions& o, std::int64_t start_id, std::int64_t walker) {
  return fixed_walk_length(o, start_id, walker, walker_stream(o, start_id, walker));
}

inline bool has_fixed_lengths(const WalkOptions& o) {
  return o.quantile >= 0 || termination_of(o.coupling) == Termination::sigma;
}

// Whether every step halts or not on its own coin (iid termination, no drawn lengths): then one word per step
// decides halting and the neighbour (IidStep).
inline bool iid_steps(const WalkOptions& o) {
  return !has_fixed_lengths(o) && termination_of(o.coupling) == Termination::iid;
}

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

// Repelling walks (Reid, Berger, Choromanski, Weller 2024, "Repelling random walks", §3): the c surviving
// walkers of one group (ascending walker id, r = 0..c-1) at a node of degree `degree` get neighbour offsets
// that spread them out while each one stays uniform on 0..degree-1:
//   c <= degree: one U ~ U(0,1); walker r takes floor(degree * ((r/c + U) mod 1)) (stratified: all distinct);
//   c >  degree: floor(c/degree) full blocks, each a cyclic shift (j + s_b) mod degree with its own uniform
//                s_b, so every neighbour is used once per block; the c mod degree others take (j + s) mod degree.
// Draws are keyed by (seed, start id, the group's lowest walker id, step, ensemble): the same on every rank.
// RepellingWords, stratified_offset and block_shift are its pieces, for callers that build packs directly.
//
// The k-th random word of a repelling group's draw at one step (four per Philox block).
class RepellingWords {
 public:
  RepellingWords(const WalkOptions& o, std::int64_t start_id, std::int64_t leader, std::int64_t step)
      : o_(o), start_id_(start_id), leader_(leader), step_(step) {}
  std::uint64_t operator()(std::int64_t k) {  // k = 0, 1, 2, ... in order
    if ((k & 3) == 0)
      words_ = philox_block(o_.seed, RngDomain::walk_repel, static_cast<std::uint64_t>(start_id_),
                            static_cast<std::uint64_t>(leader_), static_cast<std::uint64_t>(step_),
                            (o_.ensemble << 40) | static_cast<std::uint64_t>(k >> 2));
    return words_[static_cast<size_t>(k & 3)];
  }

 private:
  const WalkOptions& o_;
  std::int64_t start_id_, leader_, step_;
  std::array<std::uint64_t, 4> words_{};
};

// c <= degree: walker r's offset, floor(degree * ((r/c + u) mod 1)) with u = unit_uniform(word 0).
inline std::int64_t stratified_offset(double u, std::int64_t r, std::int64_t c, std::int64_t degree) {
  double x = static_cast<double>(r) / static_cast<double>(c) + u;
  if (x >= 1.0) x -= 1.0;
  return std::min(degree - 1, static_cast<std::int64_t>(static_cast<double>(degree) * x));
}

// c > degree: the shift s_b of block b (walkers b * degree .. b * degree + degree - 1 take (j + s_b) mod degree).
inline std::int64_t block_shift(RepellingWords& word, std::int64_t b, std::int64_t degree) {
  return static_cast<std::int64_t>(uniform_below(word(b), static_cast<std::uint64_t>(degree)));
}

inline void repelling_offsets(const WalkOptions& o, std::int64_t start_id, std::int64_t leader, std::int64_t step,
                              std::int64_t c, std::int64_t degree, std::int64_t* offsets) {
  RepellingWords word(o, start_id, leader, step);
  if (c <= degree) {
    const double u = unit_uniform(word(0));
    for (std::int64_t r = 0; r < c; ++r) offsets[r] = stratified_offset(u, r, c, degree);
    return;
  }
  const std::int64_t blocks = (c + degree - 1) / degree;  // the last one may be partial (the remainder)
  for (std::int64_t b = 0; b < blocks; ++b) {
    const std::int64_t shift = block_shift(word, b, degree);
    for (std::int64_t j = 0; j < degree && b * degree + j < c; ++j) {
      const std::int64_t shifted = j + shift;  // (j + shift) mod degree, both below degree
      offsets[b * degree + j] = shifted < degree ? shifted : shifted - degree;
    }
  }
}

// Under --weights combinatorial (W = (A + diag(d_max - d_v)) / d_max) a walker at v also has a self-loop of
// step weight d_max - d_v, the last arc of v's row, present when it is > 0 (0 for the nodes of largest degree;
// d_max for an isolated node, which then keeps its walkers instead of ending them). 0 in the other modes.
inline double combinatorial_self_loop(const WalkOptions& o, double degree_of_v) {
  return o.weights == WeightMode::combinatorial ? o.max_degree - degree_of_v : 0.0;
}

// The sum of the step weights of v's arcs: d_v, or d_max under --weights combinatorial (the self-loop included).
inline double row_step_weight(const WalkOptions& o, double degree_of_v) {
  return o.weights == WeightMode::combinatorial ? o.max_degree : degree_of_v;
}

// The factor a walker's load is multiplied by on the arc v->u: W_vu / (P(step v->u) (1 - p)), with W_vu the
// normalised, scaled or combinatorial weight (o.weights), uniform steps picking u with 1 / arcs(v) and
// weighted ones with weight / row_weight. `weight` is the arc's a_vu (the self-loop's d_max - d_v),
// `row_weight` is row_step_weight, `arcs_of_v` counts the self-loop when there is one; `keep` is 1 - p.
inline double hop_load_factor(const WalkOptions& o, double normalized_weight, double weight, double arcs_of_v,
                              double row_weight, double keep) {
  const double w = o.weights == WeightMode::normalized ? normalized_weight
                   : o.weights == WeightMode::raw      ? o.scale * weight
                                                       : weight / o.max_degree;
  return o.step == StepRule::uniform ? w * arcs_of_v / keep : w * row_weight / (weight * keep);
}

// (1 / (1 - p))^t for t = 0 .. max_length: the part of a walk's importance weight that compensates for not
// halting, applied to a load when it is deposited after t hops rather than at every hop (the walk engine's
// arc table leaves it out of its factors, so one table serves every halting probability).
inline std::vector<double> halting_compensation(const WalkOptions& o) {
  const double inv_keep = 1.0 / (1.0 - o.halt_probability());
  std::vector<double> c(static_cast<size_t>(o.max_length) + 1, 1.0);
  for (size_t t = 1; t < c.size(); ++t) c[t] = c[t - 1] * inv_keep;
  return c;
}

// One arc a walker at v may take: its target, the factor hop_load_factor gives the load, and its step weight
// (what --step weighted picks in proportion to).
struct WalkArc {
  std::int64_t target;
  double factor;
  double step_weight;
};

// The arcs of v in the order the walk engine draws them: v's graph arcs (targets `col`, weights a_vu and
// normalised weights, canonical order), then under --weights combinatorial the self-loop to `self` when its
// weight d_max - d_v is > 0. Appended to `out`. The expected factor of one hop, sum over arcs of
// P(arc) (1 - p) factor, is W_vu: the estimator is unbiased for every mode.
inline void append_walk_row(const WalkOptions& o, std::int64_t self, const std::int64_t* col, const double* normalized_weight,
                            const double* weight, std::int64_t n_arcs, double degree_of_v, double keep,
                            std::vector<WalkArc>& out) {
  const double loop = combinatorial_self_loop(o, degree_of_v), row_weight = row_step_weight(o, degree_of_v);
  const double arcs_of_v = static_cast<double>(n_arcs + (loop > 0.0));
  for (std::int64_t k = 0; k < n_arcs; ++k)
    out.push_back({col[k], hop_load_factor(o, normalized_weight[k], weight[k], arcs_of_v, row_weight, keep), weight[k]});
  if (loop > 0.0) out.push_back({self, hop_load_factor(o, 0.0, loop, arcs_of_v, row_weight, keep), loop});
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
