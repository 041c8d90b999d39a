#pragma once
// The random words of halting random walks. Every draw is keyed by (seed, original id of the start node, walker,
// step, ensemble), so a walk is the same whichever rank simulates it.
//
// A walker's per-step words come from its start node's SplitMix64 stream (Steele, Lea, Flood 2014, "Fast
// splittable pseudorandom number generators"): one Philox block keyed by (seed, start id / 4, ensemble) serves
// ids 4j .. 4j + 3, each node's seed is its word of the block and their odd increment gamma is mixed from the
// block, and the word of walker k at step t is mix64(seed + (k 2^20 + t + 1) gamma), the stream's output at
// position k 2^20 + t + 1. Walkers read disjoint stretches of their node's stream (steps stay below 2^20), and
// the nodes of different blocks have different increments, so no two walkers share a run of words (see
// root_block_gamma for nodes of one block). A word costs three multiplications, where a Philox block (four
// steps) costs twenty; the n walkers of four nodes share one Philox call.
#include <array>
#include <cstdint>

#include "graphrf/core/counter_rng.hpp"
#include "graphrf/walks/walk_options.hpp"

namespace graphrf {

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

}  // namespace graphrf
