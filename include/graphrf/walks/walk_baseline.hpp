#pragma once
// Plain single-thread walk loops on an in-memory CSR, the yardsticks of the walk benchmark: one walker at
// a time (every hop waits for its cache misses), and many walkers interleaved with a software prefetch of
// each next row (the memory-level-parallelism ceiling of one core). Same hop law as GRF walks (halt with
// probability p before each hop, uniform neighbour), with a cheap non-counter RNG.
#include <cstdint>
#include <vector>

namespace graphrf {

struct CsrView {
  const std::int64_t* row_ptr;
  const std::int64_t* col;  // local indices 0..n-1
  std::int64_t n;
};

// Total hops made by `walkers` walks from every node.
std::int64_t baseline_walks_one_at_a_time(const CsrView& g, std::int64_t walkers, double p_halt, std::uint64_t seed);
std::int64_t baseline_walks_interleaved(const CsrView& g, std::int64_t walkers, double p_halt, std::uint64_t seed,
                                        int lanes = 64);

}  // namespace graphrf
