#pragma once
// The distinct values of a list of indices, ascending, and where each entry of the list landed among them:
// one radix sort instead of a comparison sort plus a binary search per entry (at 10^7 nodes on 2 ranks, the
// binary searches over millions of ghosts were most of the time spent distributing a random graph).
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "graphrf/core/radix_sort.hpp"

namespace graphrf {

struct SortedUnique {
  std::vector<std::int64_t> values;  // ascending, distinct
  std::vector<std::int64_t> slot;    // per input entry: its position in values
};

// Entries must lie in [0, bound).
inline SortedUnique sorted_unique(std::span<const std::int64_t> entries, std::uint64_t bound) {
  std::vector<std::pair<std::uint64_t, std::int64_t>> items(entries.size());
  for (std::size_t k = 0; k < entries.size(); ++k) items[k] = {static_cast<std::uint64_t>(entries[k]), static_cast<std::int64_t>(k)};
  radix_sort_by_key(items, bound);
  SortedUnique out;
  out.slot.resize(entries.size());
  for (const auto& [value, k] : items) {
    if (out.values.empty() || static_cast<std::uint64_t>(out.values.back()) != value)
      out.values.push_back(static_cast<std::int64_t>(value));
    out.slot[static_cast<std::size_t>(k)] = static_cast<std::int64_t>(out.values.size()) - 1;
  }
  return out;
}

// The entries outside [first, first + count) (the columns a rank does not own), with slots numbered in the
// order those entries appear.
inline SortedUnique sorted_unique_outside(std::span<const std::int64_t> entries, std::int64_t first, std::int64_t count,
                                          std::uint64_t bound) {
  std::vector<std::int64_t> outside;
  for (const auto e : entries)
    if (e < first || e >= first + count) outside.push_back(e);
  return sorted_unique(outside, bound);
}

}  // namespace graphrf
