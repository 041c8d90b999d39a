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

// Where the bound is no more than twice the number of entries (a rank's ghosts among a few million nodes), a mark
// per possible value replaces the sort: one pass marks, one numbers the marked values in ascending order, one
// reads each entry's number (8 bytes per possible value, against the sort's 32 per entry; 0.1 s less of
// distributing a 10^6-node random graph on 2 ranks).
inline SortedUnique sorted_unique_by_marks(std::span<const std::int64_t> entries, std::uint64_t bound) {
  std::vector<std::int64_t> number(bound, 0);
  for (const auto e : entries) number[static_cast<std::size_t>(e)] = 1;
  SortedUnique out;
  for (std::uint64_t value = 0; value < bound; ++value)
    if (number[value]) {
      number[value] = static_cast<std::int64_t>(out.values.size());
      out.values.push_back(static_cast<std::int64_t>(value));
    }
  out.slot.resize(entries.size());
  for (std::size_t k = 0; k < entries.size(); ++k) out.slot[k] = number[static_cast<std::size_t>(entries[k])];
  return out;
}

// Entries must lie in [0, bound).
inline SortedUnique sorted_unique(std::span<const std::int64_t> entries, std::uint64_t bound) {
  if (bound <= 2 * static_cast<std::uint64_t>(entries.size())) return sorted_unique_by_marks(entries, bound);
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
