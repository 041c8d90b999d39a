#include "graphrf/grf/visit_sort.hpp"

#include <immintrin.h>

#include <boost/sort/pdqsort/pdqsort.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <functional>
#include <vector>

// GCC 12's AVX-512 shuffle intrinsics pass an undefined vector as the unused merge source, which -Wall
// reports as uninitialised once they are inlined here.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace graphrf {

namespace {

// Up to this many visits the portable path sorts by branch-free insertion (each visit sinks through the sorted
// ones by compare-exchange): a mispredicted comparison costs more than the extra ones. The networks take over
// from kNetworkFrom visits, where their fixed cost (loading, padding, putting visits in place) pays off: on a
// Zen 4 core the 16-visit network sorts 9-16 visits in 32-38 ns, insertion 8 visits in 34 ns and 10 in 51 ns.
constexpr std::size_t kBranchFreeInsertion = 16;
constexpr std::size_t kNetworkFrom = 9;
constexpr std::size_t kNetworkUpTo = 192;  // the longest run one network sorts (24 of the 32 registers)

// Sorts into ascending order as `greater_than` compares (the whole 128-bit visits by default), each visit sinking
// through the sorted ones by compare-exchange.
template <class Greater = std::greater<RowVisit>>
void sort_by_insertion(RowVisit* v, std::size_t n, Greater greater_than = {}) {
  for (std::size_t i = 1; i < n; ++i) {
    RowVisit x = v[i];
    for (std::size_t j = i; j > 0; --j) {
      const RowVisit y = v[j - 1];
      const bool greater = greater_than(y, x);
      v[j] = greater ? y : x;
      x = greater ? x : y;
    }
    v[0] = x;
  }
}

// Neighbours with equal high halves, as bits: bit k (bit k % 64 of word k / 64) says visits k and k + 1 tie.
struct TieMask {
  std::uint64_t word[3] = {0, 0, 0};  // up to 192 visits, the longest row one network sorts
};

// Bits 0 .. k - 1 of a word (all of them for k >= 64, none for k <= 0).
std::uint64_t bits_below(int k) {
  return k <= 0 ? 0 : k >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << k) - 1;
}

// The last visit of the run of ties that visit k belongs to: the first visit from k on not tied to the next.
// There is one: the bit of the row's last visit is clear (visits k + 1 past the row never tie).
int run_end(const TieMask& ties, int k) {
  int w = k / 64;
  const std::uint64_t clear = ~ties.word[w] >> (k % 64);
  if (clear) return k + std::countr_zero(clear);
  while (!~ties.word[++w]) {
  }
  return 64 * w + std::countr_zero(~ties.word[w]);
}

// Sorts visits whose high halves are all equal by their low halves (64-bit comparisons).
void sort_by_low_halves(RowVisit* v, std::size_t n) {
  sort_by_insertion(v, n, [](RowVisit a, RowVisit b) { return static_cast<std::uint64_t>(a) > static_cast<std::uint64_t>(b); });
}

// Puts runs of visits with equal high halves in order of their low halves (after a sort by the high halves
// alone). The runs come from the network's registers as bits, so rows without ties cost a test per word and rows
// with some no branch per visit.
// Runs of two may be left as they are where only their sum matters: 0.0 + a + b and 0.0 + b + a are the same
// double (IEEE addition is commutative), while three or more loads give different roundings in different orders.
void order_tied_runs(RowVisit* v, const TieMask& ties, TiedPairs pairs_order) {
  int done = 0;  // visits before this one are in order
  for (int w = 0; w < 3; ++w) {
    std::uint64_t starts = ties.word[w];  // with pairs in either order, bit k: visits k, k + 1 and k + 2 tie
    if (pairs_order == TiedPairs::either_order) starts &= (starts >> 1) | (w < 2 ? ties.word[w + 1] << 63 : 0);
    starts &= ~bits_below(done - 64 * w);
    while (starts) {
      const int first = 64 * w + std::countr_zero(starts);
      const int last = run_end(ties, first);
      sort_by_low_halves(v + first, static_cast<std::size_t>(last - first) + 1);
      done = last;
      starts &= ~bits_below(last - 64 * w);
    }
  }
}

// Batcher's bitonic sort in its all-ascending form: runs of 2, 4, ... keys, each merged from two sorted runs of
// half its length by comparing key i of the block with key Block - 1 - i (the mirror stage: the second run read
// backwards), then half-cleaners with partners Block / 4, ..., 1 apart. Every compare-exchange puts the smaller
// key at the lower position, so padding keys (the largest, at the end) never move and never move a key: the
// network sorts n keys in the first `Used` of R registers (8 R a power of two) and skips every exchange that
// involves a register of padding only. Keys live in registers of 8 lanes, key 8 r + lane in lane `lane` of
// register r. Every index and mask is a template argument, so a network compiles to straight-line code in
// registers (written as loops, GCC kept the network's bookkeeping at run time and spilled the registers).

// Lane k's partner: lane k ^ (Distance) for the half-cleaners (Distance 4, 2, 1), lane k ^ (Block - 1) within
// blocks of Block = 8, 4, 2 lanes for the mirror stages.
template <int Distance>
__attribute__((target("avx512f"), always_inline)) inline __m512i lanes_apart(__m512i x) {
  if constexpr (Distance == 4) return _mm512_shuffle_i64x2(x, x, 0x4E);
  else if constexpr (Distance == 2) return _mm512_permutex_epi64(x, 0x4E);
  else return _mm512_shuffle_epi32(x, static_cast<_MM_PERM_ENUM>(0x4E));
}
template <int Block>
__attribute__((target("avx512f"), always_inline)) inline __m512i lanes_mirrored(__m512i x) {
  if constexpr (Block == 8) return _mm512_permutexvar_epi64(_mm512_set_epi64(0, 1, 2, 3, 4, 5, 6, 7), x);
  else if constexpr (Block == 4) return _mm512_permutex_epi64(x, 0x1B);
  else return _mm512_shuffle_epi32(x, static_cast<_MM_PERM_ENUM>(0x4E));
}

// The lanes holding the lower key of their pair: bit `half` of the lane index clear.
constexpr __mmask8 lower_lanes(int half) {
  unsigned lanes = 0;
  for (int lane = 0; lane < 8; ++lane)
    if ((lane & half) == 0) lanes |= 1u << lane;
  return static_cast<__mmask8>(lanes);
}

// Pairs within a register: the lower lanes take the smaller keys.
template <int half>
__attribute__((target("avx512f"), always_inline)) inline __m512i in_register(__m512i x, __m512i partner) {
  return _mm512_mask_blend_epi64(lower_lanes(half), _mm512_max_epu64(x, partner), _mm512_min_epu64(x, partner));
}

// The mirror stage of blocks of `Block` keys, for registers r, r + 1, ... below Used.
template <int Used, int Block, int r = 0>
__attribute__((target("avx512f"), always_inline)) inline void mirror_stage(__m512i* keys) {
  if constexpr (r < Used) {
    if constexpr (Block <= 8) {
      keys[r] = in_register<Block / 2>(keys[r], lanes_mirrored<Block>(keys[r]));
    } else {
      constexpr int registers = Block / 8, first = r / registers * registers, mirror = first + registers - 1 - (r - first);
      if constexpr (r < mirror && mirror < Used) {  // lane k of r against lane 7 - k of its mirror register
        const __m512i a = keys[r], b = lanes_mirrored<8>(keys[mirror]);
        keys[r] = _mm512_min_epu64(a, b);
        keys[mirror] = lanes_mirrored<8>(_mm512_max_epu64(a, b));
      }
    }
    mirror_stage<Used, Block, r + 1>(keys);
  }
}

// The half-cleaner with partners `Distance` apart, then the closer ones down to neighbouring lanes.
template <int Used, int Distance, int r = 0>
__attribute__((target("avx512f"), always_inline)) inline void half_cleaners(__m512i* keys) {
  if constexpr (r < Used) {
    if constexpr (Distance < 8) {
      keys[r] = in_register<Distance>(keys[r], lanes_apart<Distance>(keys[r]));
    } else {
      constexpr int apart = Distance / 8;
      if constexpr ((r & apart) == 0 && r + apart < Used) {
        const __m512i a = keys[r], b = keys[r + apart];
        keys[r] = _mm512_min_epu64(a, b);
        keys[r + apart] = _mm512_max_epu64(a, b);
      }
    }
    half_cleaners<Used, Distance, r + 1>(keys);
  } else if constexpr (Distance > 1) {
    half_cleaners<Used, Distance / 2>(keys);
  }
}

template <int R, int Used, int Block = 2>
__attribute__((target("avx512f"), always_inline)) inline void bitonic_network(__m512i* keys) {
  mirror_stage<Used, Block>(keys);
  if constexpr (Block >= 4) half_cleaners<Used, Block / 4>(keys);
  if constexpr (Block < 8 * R) bitonic_network<R, Used, Block * 2>(keys);
}

// The networks sort 64-bit words (key << 8 | index): the visit's high half and its place in the row, so the
// keys are distinct and the network moves no payload (half the work of carrying the low halves along). The
// visits are then put in the sorted order through a copy. Rows whose high halves reach 2^55 (columns of 2^35 and
// more) do not fit and are sorted by the portable path (the words stay below the padding, 2^64 - 1).
constexpr int kIndexBits = 8;
constexpr std::uint64_t kLargestNetworkKey = (std::uint64_t{1} << 55) - 1;

// Sorts n <= 8 R visits by their high halves, if those fit the network's words (false: the row is untouched).
// Returns which sorted neighbours have equal high halves (read off the registers, not the stored visits).
template <int R, int Used = R>
__attribute__((target("avx512f"))) bool sort_by_network(RowVisit* v, std::size_t n, TieMask& ties) {
  static_assert(8 * R <= (1 << kIndexBits) && Used <= R && (R & (R - 1)) == 0);
  __m512i keys[R];
  auto* words = reinterpret_cast<const std::uint64_t*>(v);  // little-endian: low half, then high half
  const __m512i odd = _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1);
  const __m512i padding = _mm512_set1_epi64(-1);  // above every word of a visit
  const __m512i lane_index = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
  const auto visits_in = [n](int r) { return static_cast<int>(std::min<std::size_t>(8, n - std::min<std::size_t>(n, 8 * static_cast<std::size_t>(r)))); };
  __m512i too_large = _mm512_setzero_si512();
  for (int r = 0; r < Used; ++r) {
    const int count = visits_in(r);
    const auto first = static_cast<__mmask8>((1u << std::min(2 * count, 8)) - 1);
    const auto second = static_cast<__mmask8>((1u << std::max(2 * count - 8, 0)) - 1);
    const __m512i a = _mm512_maskz_loadu_epi64(first, words + 16 * r);
    const __m512i b = _mm512_maskz_loadu_epi64(second, words + 16 * r + 8);
    const __m512i high = _mm512_permutex2var_epi64(a, odd, b);
    too_large = _mm512_or_si512(too_large, high);
    const __m512i word = _mm512_or_si512(_mm512_slli_epi64(high, kIndexBits), _mm512_add_epi64(lane_index, _mm512_set1_epi64(8 * r)));
    keys[r] = _mm512_mask_blend_epi64(static_cast<__mmask8>((1u << count) - 1), padding, word);
  }
  if (static_cast<std::uint64_t>(_mm512_reduce_or_epi64(too_large)) > kLargestNetworkKey) return false;
  bitonic_network<R, Used>(keys);
  // Each visit to its place, from a copy of the row.
  alignas(64) std::uint64_t sorted[8 * Used];
  for (int r = 0; r < Used; ++r) _mm512_store_si512(sorted + 8 * r, keys[r]);
  RowVisit copy[8 * Used];
  std::copy(v, v + n, copy);
  constexpr std::uint64_t kIndexMask = (std::uint64_t{1} << kIndexBits) - 1;
  for (std::size_t k = 0; k < n; ++k) v[k] = copy[sorted[k] & kIndexMask];
  ties = TieMask{};
  for (int r = 0; r < Used; ++r) {
    // Each lane's right neighbour: the next lane, or the next register's first (padding after the last).
    const __m512i high = _mm512_srli_epi64(keys[r], kIndexBits);
    const __m512i next = _mm512_srli_epi64(_mm512_alignr_epi64(r + 1 < Used ? keys[r + 1] : padding, keys[r], 1), kIndexBits);
    ties.word[r / 8] |= std::uint64_t{_mm512_cmpeq_epu64_mask(high, next)} << (8 * (r % 8));
  }
  // Padding words equal each other: keep pairs of visits only (k + 1 < n).
  for (int w = 0; w < 3; ++w) ties.word[w] &= bits_below(static_cast<int>(n) - 1 - 64 * w);
  return true;
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

// Sorts n <= kNetworkUpTo visits (more than 2) by the networks, or by the portable path where they do not fit.
void sort_by_networks(RowVisit* v, std::size_t n, TiedPairs pairs) {
  TieMask ties;
  bool fits;
  // Networks sized to the row by registers of padding left out: 8 visits apart below 32, 16 to 128, 32 beyond.
  if (n <= 16) fits = sort_by_network<2>(v, n, ties);
  else if (n <= 24) fits = sort_by_network<4, 3>(v, n, ties);
  else if (n <= 32) fits = sort_by_network<4>(v, n, ties);
  else if (n <= 48) fits = sort_by_network<8, 6>(v, n, ties);
  else if (n <= 64) fits = sort_by_network<8>(v, n, ties);
  else if (n <= 80) fits = sort_by_network<16, 10>(v, n, ties);
  else if (n <= 96) fits = sort_by_network<16, 12>(v, n, ties);
  else if (n <= 112) fits = sort_by_network<16, 14>(v, n, ties);
  else if (n <= 128) fits = sort_by_network<16>(v, n, ties);
  else if (n <= 160) fits = sort_by_network<32, 20>(v, n, ties);
  else fits = sort_by_network<32, 24>(v, n, ties);
  if (fits) order_tied_runs(v, ties, pairs);
  else sort_row_visits_portable(v, n);
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

// Rows longer than one network: runs of kNetworkUpTo visits sorted by the networks (in full: a tied pair of one
// run may meet a third visit of its key from another), then merged pairwise.
void sort_by_networks_and_merges(RowVisit* v, std::size_t n) {
  for (std::size_t start = 0; start < n; start += kNetworkUpTo)
    sort_row_visits(v + start, std::min(kNetworkUpTo, n - start));
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

void sort_row_visits(RowVisit* v, std::size_t n, TiedPairs pairs) {
  if (n <= 2) {  // a walk of one hop or none, with M_0's entry
    if (n == 2 && v[1] < v[0]) std::swap(v[0], v[1]);
    return;
  }
  if (n < kNetworkFrom || !has_avx512()) return sort_row_visits_portable(v, n);
  if (n <= kNetworkUpTo) sort_by_networks(v, n, pairs);
  else sort_by_networks_and_merges(v, n);
}

}  // namespace graphrf
