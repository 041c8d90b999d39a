#pragma once
// Counter-based random numbers (Random123 Philox4x64-10). A draw is a pure function of
// (seed, domain, id, a, b, c): random streams are keyed by global work ids (original node id, walker,
// step, column, ...), never by the rank, so results do not depend on the rank count or the partition.
#include <Random123/philox.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <utility>

namespace graphrf {

// Separates the uses of one seed so that, e.g., walk steps and feature draws never share a stream.
enum class RngDomain : std::uint64_t {
  graph_generator = 1,
  walk_step = 2,
  // 3 was walk_halt: antithetic taus now come from the walk streams
  wavelet_gaussian = 4,
  wavelet_probe = 5,
  feature_draw = 6,
  synthetic_data = 7,
  walk_length = 8,   // sigma-coupled and quantile walk lengths
  walk_repel = 9,    // repelling walks: a group's neighbour offsets
  gp_probe = 10,      // Hutchinson / Lanczos probe vectors of GP learning
  gp_sample = 11,     // prior weights and noise of pathwise GP posterior samples
  gp_split = 12,      // random train/test splits of observations
  gp_synthetic = 13,  // synthetic GP observations (graphrf gp --synthetic)
  reference_sample = 14,  // nodes of a sampled reference
  scene = 15,             // synthetic point-cloud scenes (bench-points)
};

// Four 64-bit words for one counter value.
__attribute__((always_inline)) inline std::array<std::uint64_t, 4> philox_block(std::uint64_t seed, RngDomain domain, std::uint64_t id,
                                                 std::uint64_t a = 0, std::uint64_t b = 0, std::uint64_t c = 0) {
  using Philox = r123::Philox4x64;
  Philox rng;
  Philox::key_type key = {{seed, static_cast<std::uint64_t>(domain)}};
  Philox::ctr_type ctr = {{id, a, b, c}};
  const auto out = rng(ctr, key);
  return {out[0], out[1], out[2], out[3]};
}

// Uniform double in [0, 1) from the top 53 bits.
inline double unit_uniform(std::uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }
// Uniform double in (0, 1]: safe under log().
inline double open_unit_uniform(std::uint64_t bits) { return (static_cast<double>(bits >> 11) + 1.0) * 0x1.0p-53; }

// Two independent standard normals from two uniform words (Box-Muller).
inline std::pair<double, double> standard_normal_pair(std::uint64_t w0, std::uint64_t w1) {
  const double r = std::sqrt(-2.0 * std::log(open_unit_uniform(w0)));
  const double theta = 2.0 * std::numbers::pi * unit_uniform(w1);
  return {r * std::cos(theta), r * std::sin(theta)};
}

__extension__ typedef unsigned __int128 Uint128;  // GCC/Clang 128-bit product for multiply-shift

// Uniform integer in [0, n) without modulo bias worth caring about (Lemire's multiply-shift on 64 bits).
inline std::uint64_t uniform_below(std::uint64_t bits, std::uint64_t n) {
  return static_cast<std::uint64_t>((static_cast<Uint128>(bits) * n) >> 64);
}

}  // namespace graphrf
