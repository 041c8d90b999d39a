#include "graphrf/grf/visit_sort.hpp"

#include <immintrin.h>

#include <boost/sort/pdqsort/pdqsort.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

// GCC 12's AVX-512 shuffle intrinsics pass an undefined vector as the unused merge source, which -Wall
// reports as uninitialised once they are inlined here.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace graphrf {

namespace {

// Up to this many visits the portable path sorts by branch-free insertion (each visit sinks through the sorted
// ones by compare-exchange): a mispredicted comparison costs more than the extra ones. The networks take over
// from kNetworkFrom visits, where their fixed cost (loading, padding to a power of two) pays off.
constexpr std::size_t kBranchFreeInsertion = 16;
constexpr std::size_t kNetworkFrom = 11;
constexpr std::size_t kNetworkUpTo = 128;  // the longest run one network sorts (32 registers of keys and payloads)

void sort_by_insertion(RowVisit* v, std::size_t n) {
  for (std::size_t i = 1; i < n; ++i) {
    RowVisit x = v[i];
    for (std::size_t j = i; j > 0; --j) {
      const RowVisit y = v[j - 1];
      const bool greater = y > x;
      v[j] = greater ? y : x;
      x = greater ? x : y;
    }
    v[0] = x;
  }
}

// Neighbours with equal keys, as bits: bit k of the 128-bit mask says visits k and k + 1 have equal high halves.
using TieMask = Uint128;

int lowest_bit(TieMask m) {
  const auto low = static_cast<std::uint64_t>(m);
  return low ? std::countr_zero(low) : 64 + std::countr_zero(static_cast<std::uint64_t>(m >> 64));
}

// Puts each run of visits with equal high halves in order of their low halves (after a sort by the high halves
// alone). The runs come from the network's registers as bits, so rows without ties cost one test and rows with
// some no branch per visit. Bit 127 is never set (at most 128 visits), so a run's end is always found.
void order_tied_runs(RowVisit* v, TieMask ties) {
  while (ties) {
    const int first = lowest_bit(ties);
    const int pairs = lowest_bit(~(ties >> first));  // equal neighbours in a row from `first` on
    sort_by_insertion(v + first, static_cast<std::size_t>(pairs) + 1);
    ties &= ~((TieMask{1} << (first + pairs)) - 1);
  }
}

// Each lane's partner `Distance` = 4, 2 or 1 lanes away, by in-lane shuffles.
template <int Distance>
__attribute__((target("avx512f"), always_inline)) inline __m512i partner_lanes(__m512i x) {
  if constexpr (Distance == 4) return _mm512_shuffle_i64x2(x, x, 0x4E);
  else if constexpr (Distance == 2) return _mm512_permutex_epi64(x, 0x4E);
  else return _mm512_shuffle_epi32(x, static_cast<_MM_PERM_ENUM>(0x4E));
}

// Lanes of register r that keep the smaller key of their pair in a stage within registers: the lower lane of
// an ascending pair, the upper lane of a descending one.
constexpr unsigned lanes_keeping_min(int r, int block, int distance) {
  unsigned keeps = 0;
  for (int lane = 0; lane < 8; ++lane) {
    const bool ascending = ((r * 8 + lane) & block) == 0, lower = (lane & distance) == 0;
    if (ascending == lower) keeps |= 1u << lane;
  }
  return keeps;
}

// One compare-exchange stage of a bitonic sorting network over 8 R keys in R registers (keys of `Block`-long
// runs sorted in alternating directions, partners `Distance` apart), for register r, each key moving with its
// payload. Every index and mask is a template argument, so the whole network compiles to straight-line code in
// registers (written as loops, GCC kept the network's bookkeeping at run time and spilled the registers).
template <int Block, int Distance, int r>
__attribute__((target("avx512f"), always_inline)) inline void exchange(__m512i* keys, __m512i* payloads) {
  if constexpr (Distance >= 8) {  // partners in another register: compare whole registers
    constexpr int apart = Distance / 8;
    if constexpr ((r & apart) == 0) {
      constexpr bool ascending = ((r * 8) & Block) == 0;
      constexpr int low = ascending ? r : r + apart, high = ascending ? r + apart : r;
      const __m512i a = keys[low], b = keys[high];
      const __mmask8 swap = _mm512_cmpgt_epu64_mask(a, b);
      keys[low] = _mm512_min_epu64(a, b);
      keys[high] = _mm512_max_epu64(a, b);
      const __m512i pa = payloads[low], pb = payloads[high];
      payloads[low] = _mm512_mask_blend_epi64(swap, pa, pb);
      payloads[high] = _mm512_mask_blend_epi64(swap, pb, pa);
    }
  } else {  // partners within the register, by a shuffle
    constexpr auto keeps_min = static_cast<__mmask8>(lanes_keeping_min(r, Block, Distance));
    const __m512i x = keys[r], y = partner_lanes<Distance>(x);
    // Both lanes of a pair take the other's key under the same strict comparison, so ties stay put.
    const __mmask8 take = _mm512_mask_cmplt_epu64_mask(keeps_min, y, x) |
                          _mm512_mask_cmpgt_epu64_mask(static_cast<__mmask8>(~keeps_min), y, x);
    keys[r] = _mm512_mask_blend_epi64(take, x, y);
    const __m512i p = payloads[r];
    payloads[r] = _mm512_mask_blend_epi64(take, p, partner_lanes<Distance>(p));
  }
}

// A stage over every register, then the stages with partners closer, down to neighbouring lanes.
template <int R, int Block, int Distance, int r = 0>
__attribute__((target("avx512f"), always_inline)) inline void merge_stages(__m512i* keys, __m512i* payloads) {
  if constexpr (r < R) {
    exchange<Block, Distance, r>(keys, payloads);
    merge_stages<R, Block, Distance, r + 1>(keys, payloads);
  } else if constexpr (Distance > 1) {
    merge_stages<R, Block, Distance / 2>(keys, payloads);
  }
}

// Batcher's bitonic sort: runs of 2, 4, ... 8 R keys, each merged from two runs of half its length.
template <int R, int Block = 2>
__attribute__((target("avx512f"), always_inline)) inline void bitonic_network(__m512i* keys, __m512i* payloads) {
  merge_stages<R, Block, Block / 2>(keys, payloads);
  if constexpr (Block < 8 * R) bitonic_network<R, Block * 2>(keys, payloads);
}

// Sorts n <= 8 R visits by their high halves: visits are split into keys (high halves) and payloads (low
// halves), padded with keys that no visit has (all ones: columns stay below 2^43), sorted, and put back.
// Returns which sorted neighbours have equal keys (read off the registers, not the stored visits).
template <int R>
__attribute__((target("avx512f"))) TieMask sort_by_network(RowVisit* v, std::size_t n) {
  __m512i keys[R], payloads[R];
  auto* words = reinterpret_cast<std::uint64_t*>(v);  // little-endian: low half, then high half
  const __m512i odd = _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1), even = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0);
  const __m512i padding = _mm512_set1_epi64(-1);
  const auto visits_in = [n](int r) { return static_cast<int>(std::min<std::size_t>(8, n - std::min<std::size_t>(n, 8 * static_cast<std::size_t>(r)))); };
  const auto first_mask = [](int count) { return static_cast<__mmask8>((1u << std::min(2 * count, 8)) - 1); };
  const auto second_mask = [](int count) { return static_cast<__mmask8>((1u << std::max(2 * count - 8, 0)) - 1); };
  for (int r = 0; r < R; ++r) {
    const int count = visits_in(r);
    const __m512i a = _mm512_maskz_loadu_epi64(first_mask(count), words + 16 * r);
    const __m512i b = _mm512_maskz_loadu_epi64(second_mask(count), words + 16 * r + 8);
    keys[r] = _mm512_mask_blend_epi64(static_cast<__mmask8>((1u << count) - 1), padding, _mm512_permutex2var_epi64(a, odd, b));
    payloads[r] = _mm512_permutex2var_epi64(a, even, b);
  }
  bitonic_network<R>(keys, payloads);
  const __m512i first = _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0), second = _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4);
  for (int r = 0; r < R; ++r) {
    const int count = visits_in(r);
    _mm512_mask_storeu_epi64(words + 16 * r, first_mask(count), _mm512_permutex2var_epi64(payloads[r], first, keys[r]));
    _mm512_mask_storeu_epi64(words + 16 * r + 8, second_mask(count), _mm512_permutex2var_epi64(payloads[r], second, keys[r]));
  }
  TieMask ties = 0;
  for (int r = 0; r < R; ++r) {
    // Each lane's right neighbour: the next lane, or the next register's first (padding after the last).
    const __m512i next = _mm512_alignr_epi64(r + 1 < R ? keys[r + 1] : padding, keys[r], 1);
    ties |= static_cast<TieMask>(_mm512_cmpeq_epu64_mask(keys[r], next)) << (8 * r);
  }
  // Padding keys equal each other: keep pairs of visits only (k + 1 < n).
  return ties & ((TieMask{1} << (n - 1)) - 1);
}

bool has_avx512() {
  static const bool yes = __builtin_cpu_supports("avx512f");
  return yes;
}

}  // namespace

bool visit_sort_uses_avx512() { return has_avx512(); }

void sort_row_visits_portable(RowVisit* v, std::size_t n) {
  if (n <= kBranchFreeInsertion) sort_by_insertion(v, n);
  else boost::sort::pdqsort_branchless(v, v + n);
}

namespace {

// Sorts n <= kNetworkUpTo visits (more than 2) by the networks.
void sort_by_networks(RowVisit* v, std::size_t n) {
  TieMask ties;
  if (n <= 16) ties = sort_by_network<2>(v, n);
  else if (n <= 32) ties = sort_by_network<4>(v, n);
  else if (n <= 64) ties = sort_by_network<8>(v, n);
  else ties = sort_by_network<16>(v, n);
  order_tied_runs(v, ties);
}

// Merges two sorted runs into `out`, one visit per step without a branch on the comparison (the selection
// by masks and the advance by arithmetic: GCC made a branch of `take_b ? ... : ...`).
void merge_runs(const RowVisit* a, std::size_t na, const RowVisit* b, std::size_t nb, RowVisit* out) {
  const RowVisit *a_end = a + na, *b_end = b + nb;
  while (a < a_end && b < b_end) {
    const RowVisit x = *a, y = *b;
    const auto take_b = static_cast<std::uint64_t>(y < x);
    const RowVisit mask = -static_cast<RowVisit>(take_b);
    *out++ = (y & mask) | (x & ~mask);
    b += take_b;
    a += 1 - take_b;
  }
  out = std::copy(a, a_end, out);
  std::copy(b, b_end, out);
}

// Rows longer than one network: runs of kNetworkUpTo visits sorted by the networks, then merged pairwise
// (five times faster than quicksort at 129 visits, twice at 400).
void sort_by_networks_and_merges(RowVisit* v, std::size_t n) {
  for (std::size_t start = 0; start < n; start += kNetworkUpTo) {
    const std::size_t length = std::min(kNetworkUpTo, n - start);
    if (length > 2) sort_by_networks(v + start, length);
    else if (length == 2 && v[start + 1] < v[start]) std::swap(v[start], v[start + 1]);
  }
  thread_local std::vector<RowVisit> scratch;  // as long as the longest row merged so far (a row holds as much)
  if (scratch.size() < n) scratch.resize(std::bit_ceil(n));
  RowVisit *from = v, *to = scratch.data();
  for (std::size_t width = kNetworkUpTo; width < n; width *= 2) {
    for (std::size_t start = 0; start < n; start += 2 * width) {
      const std::size_t middle = std::min(start + width, n), end = std::min(start + 2 * width, n);
      merge_runs(from + start, middle - start, from + middle, end - middle, to + start);
    }
    std::swap(from, to);
  }
  if (from != v) std::copy(from, from + n, v);
}

}  // namespace

void sort_row_visits(RowVisit* v, std::size_t n) {
  if (n <= 2) {  // a walk of one hop or none, with M_0's entry
    if (n == 2 && v[1] < v[0]) std::swap(v[0], v[1]);
    return;
  }
  if (n < kNetworkFrom || !has_avx512()) return sort_row_visits_portable(v, n);
  if (n <= kNetworkUpTo) sort_by_networks(v, n);
  else sort_by_networks_and_merges(v, n);
}

}  // namespace graphrf
