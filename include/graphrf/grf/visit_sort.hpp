#pragma once
// Sorting one GRF row's visits into their fixed summation order: ascending as unsigned 128-bit integers
// (RowVisit: column and step in the high half, the load's bits in the low half). The order is the same on
// every machine; only the algorithm depends on the row's length and the processor. Rows of short walks are
// sorted by a branch-free insertion; longer rows by bitonic sorting networks held in AVX-512 registers where
// the processor has them (Batcher 1968, "Sorting networks and their applications"), sized to the row, which sort
// one 64-bit word per visit (its high half and its index in the row: no payload moves through the network),
// then put visits with equal high halves in order of their low halves (runs of three or more only, where pairs
// may come in either order: TiedPairs); beyond 192 visits, runs of 192 sorted so are merged pairwise. Without
// AVX-512, or for columns of 2^35 and more, by pattern-defeating quicksort with
// branch-free partitioning (Peters 2021, "Pattern-defeating Quicksort").
#include <cstddef>

#include "graphrf/walks/deposit_sink.hpp"

namespace graphrf {

// How two visits with equal high halves (and no third) come out: in order of their low halves, or, for callers
// that only add up the loads of equal high halves, in either order (0.0 + a + b is the same double as
// 0.0 + b + a: IEEE addition is commutative; three or more loads are always put in order, as their sums are
// not associative). Leaving pairs alone saves the networks' most frequent tie handling.
enum class TiedPairs { sorted, either_order };

void sort_row_visits(RowVisit* v, std::size_t n, TiedPairs pairs = TiedPairs::sorted);

// The two paths apart, for tests: whether this processor runs the AVX-512 networks, and the portable sort.
bool visit_sort_uses_avx512();
void sort_row_visits_portable(RowVisit* v, std::size_t n);

}  // namespace graphrf
