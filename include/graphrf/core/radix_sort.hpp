#pragma once
// Stable LSD radix sort of (key, value) pairs by key, for keys below `key_bound`: 11-bit digits, as many passes
// as the bound needs (2 for a million nodes, 3 for a billion). A comparison sort of millions of node indices was
// the largest cost of translating GRF columns to canonical order.
#include <array>
#include <bit>
#include <cstdint>
#include <utility>
#include <vector>

namespace graphrf {

template <class Value>
void radix_sort_by_key(std::vector<std::pair<std::uint64_t, Value>>& items, std::uint64_t key_bound) {
  constexpr int kDigitBits = 11;
  constexpr std::size_t kBuckets = std::size_t{1} << kDigitBits;
  const int bits = std::bit_width(key_bound > 0 ? key_bound - 1 : 0);
  std::vector<std::pair<std::uint64_t, Value>> scratch(items.size());
  for (int shift = 0; shift < bits; shift += kDigitBits) {
    std::array<std::size_t, kBuckets + 1> start{};
    for (const auto& item : items) ++start[((item.first >> shift) & (kBuckets - 1)) + 1];
    for (std::size_t b = 0; b < kBuckets; ++b) start[b + 1] += start[b];
    for (const auto& item : items) scratch[start[(item.first >> shift) & (kBuckets - 1)]++] = item;
    items.swap(scratch);
  }
}

}  // namespace graphrf
