#pragma once
// The pass that turns one GRF row's visits, sorted into their summation order (visit_sort.hpp) and ended by a
// sentinel, into the row's Phi entries: each (column, step) run's loads summed as 0.0 + l1 + l2 + ..., times 1/n
// and f_t, and each column's terms summed over ascending steps from 0.0 (Reid et al. 2025a, Eq. 10). One pass
// without data-dependent branches; with AVX-512 the same operations in the same order with mask registers
// (bit for bit the portable pass's sums).
#include <cstddef>
#include <cstdint>
#include <span>

#include "graphrf/walks/deposit_sink.hpp"

namespace graphrf {

// f_t, zero beyond f's length (a predictable branch: f usually covers every step).
inline double modulation(std::span<const double> f, std::int32_t step) {
  const auto t = static_cast<std::size_t>(step);
  return t < f.size() ? f[t] : 0.0;
}

// How a row's (column, step) runs are made: RunsOfOne::yes when every run is one visit (one walker per node:
// no two visits share a step), which leaves out the run sums (0.0 + load is the run's sum: the same bits).
enum class RunsOfOne { no, yes };

// Sums the sorted visits v[0 .. n) (v[n] a sentinel whose high half no visit has) into the row's Phi entries,
// written over the visits from v[0] on as (column, value) pairs of 16 bytes; returns their number.
std::size_t sum_row_runs(RowVisit* v, std::size_t n, std::span<const double> f, double inv_n, RunsOfOne runs);

// The two passes apart, for tests: whether this processor takes the AVX-512 pass, and the portable one.
bool row_sums_use_avx512();
std::size_t sum_row_runs_portable(RowVisit* v, std::size_t n, std::span<const double> f, double inv_n, RunsOfOne runs);

}  // namespace graphrf
