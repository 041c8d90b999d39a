#pragma once
// The nodes a sampled reference looks at: a uniform sample without replacement of canonical node indices
// (positions in ascending original-id order), drawn from the seed alone, so every rank draws the same sample
// and it does not depend on the rank count or the partition.
#include <cstdint>
#include <vector>

namespace graphrf {

// min(count, n) distinct indices of 0 .. n - 1, ascending (Floyd's algorithm on Philox draws keyed by step).
std::vector<std::int64_t> sample_node_indices(std::int64_t n, std::int64_t count, std::uint64_t seed);

}  // namespace graphrf
