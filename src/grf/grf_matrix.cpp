#include "graphrf/grf/grf_matrix.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "graphrf/grf/visit_sort.hpp"

namespace graphrf {

namespace {

// The row's visits with M_0's entry among them (every walker is at its start node with load 1 at step 0, which
// the walk engine does not deposit: one entry (global_row, 0) of load n, the exact sum of the n unit loads),
// in the fixed order (RowVisit), then a sentinel that ends every run. Returns the number of entries before it.
// The builders only add up each (column, step) run's loads, so a run of two may come in either order.
size_t prepare_row(std::vector<RowVisit>& visits, std::int64_t global_row, std::int64_t walkers) {
  visits.push_back(row_visit(global_row, 0, static_cast<double>(walkers)));
  sort_row_visits(visits.data(), visits.size(), TiedPairs::either_order);
  const size_t n = visits.size();
  visits.push_back(~RowVisit{0});  // a key no visit has (columns stay below 2^43)
  return n;
}

// f_t, zero beyond f's length (a predictable branch: f usually covers every step).
inline double modulation(std::span<const double> f, std::int32_t step) {
  const auto t = static_cast<size_t>(step);
  return t < f.size() ? f[t] : 0.0;
}

// x where c holds, else +0.0, by a bit mask: GCC compiles `c ? x : 0.0` on doubles to a branch, which
// mispredicts here. With SSE2 the mask stays in a vector register, off the dependency chain of the sums.
inline double keep_if(bool c, double x) {
  const std::uint64_t mask = std::uint64_t{0} - static_cast<std::uint64_t>(c);
#if defined(__SSE2__)
  return _mm_cvtsd_f64(_mm_and_pd(_mm_set_sd(x), _mm_castsi128_pd(_mm_cvtsi64_si128(static_cast<long long>(mask)))));
#else
  return std::bit_cast<double>(std::bit_cast<std::uint64_t>(x) & mask);
#endif
}

// Sums the sorted visits v[0 .. n) (a sentinel after them) into the row's Phi entries, written as (column, value)
// pairs over the visits from v[0] on; returns their number. One pass without data-dependent branches (most runs
// are one visit long, so branching at run ends mispredicts about once per column): each visit extends its run's
// sum, or starts it from 0.0; at a run's last visit the column's sum takes the run's term (elsewhere it adds
// +0.0, which leaves every sum that starts from +0.0 unchanged, bit for bit); every visit writes its column's
// entry at slot `columns`, which moves on only where the column ends. Entries go back into the sorted visits
// (that slot, <= k, is read).
// kRunsOfOne: every (column, step) is one visit's (one walker per node), so the run sums are left out.
template <bool kRunsOfOne>
size_t sum_row_runs(RowVisit* v, size_t n, std::span<const double> f, double inv_n) {
  [[maybe_unused]] std::uint64_t previous = ~std::uint64_t{0};  // no visit's key: the first run starts from 0.0
  [[maybe_unused]] double sum = 0.0;
  double column_sum = 0.0;
  size_t columns = 0;
  for (size_t k = 0; k < n; ++k) {
    const std::uint64_t key = visit_key(v[k]), next = visit_key(v[k + 1]);
    if constexpr (kRunsOfOne) {  // the same sums: each run starts from 0.0 and ends at once
      column_sum += modulation(f, key_step(key)) * ((0.0 + visit_load(v[k])) * inv_n);
    } else {
      sum = keep_if(key == previous, sum) + visit_load(v[k]);
      column_sum += keep_if(next != key, modulation(f, key_step(key)) * (sum * inv_n));
    }
    const bool column_ends = key_col(next) != key_col(key);
    const std::int64_t column = key_col(key);
    auto* entry = reinterpret_cast<unsigned char*>(v + columns);
    std::memcpy(entry, &column, sizeof column);
    std::memcpy(entry + sizeof column, &column_sum, sizeof column_sum);
    columns += column_ends ? 1 : 0;
    column_sum = keep_if(!column_ends, column_sum);
    previous = key;
  }
  return columns;
}

}  // namespace

// Both builders walk the sorted visits by (column, step) runs: a run's loads add up as 0.0 + l1 + l2 + ...,
// and a column's Phi as 0.0 + f_t1 M_t1[i, c] + f_t2 M_t2[i, c] + ... over ascending t. The sentinel ends every
// run and column, so the loops test no bounds.
void append_length_resolved_row(LengthResolvedGrf& m, std::vector<RowVisit>& visits, std::int64_t global_row,
                                std::int64_t walkers) {
  if (m.indptr.empty()) m.indptr.push_back(0);
  const size_t n = prepare_row(visits, global_row, walkers);
  const RowVisit* v = visits.data();
  const double inv_n = 1.0 / static_cast<double>(walkers);
  for (size_t k = 0; k < n;) {
    const std::uint64_t key = visit_key(v[k]);
    double sum = 0.0;
    do sum += visit_load(v[k++]);
    while (visit_key(v[k]) == key);
    m.col.push_back(key_col(key));
    m.length.push_back(key_step(key));
    m.value.push_back(sum * inv_n);
  }
  m.indptr.push_back(static_cast<std::int64_t>(m.col.size()));
  visits.clear();
}

void append_grf_row(SparseRows& phi, std::vector<RowVisit>& visits, std::int64_t global_row, std::int64_t walkers,
                    std::span<const double> f) {
  if (phi.indptr.empty()) phi.indptr.push_back(0);
  // The same products, summed in the same order, as append_combined_row over the length-resolved row.
  const double inv_n = 1.0 / static_cast<double>(walkers);
  const double start_term = modulation(f, 0) * ((0.0 + static_cast<double>(walkers)) * inv_n);  // M_0's
  if (visits.size() <= 1) {  // no hop, or one (three rows in four at p_halt 0.5, n = 1): no sort, no pass
    const std::int64_t column = visits.empty() ? global_row : visit_col(visits[0]);
    const double term = visits.empty() ? 0.0 : modulation(f, visit_step(visits[0])) * ((0.0 + visit_load(visits[0])) * inv_n);
    if (column == global_row) {  // a step-0 run, then (a self-loop) the step-t run: ascending steps
      phi.col.push_back(global_row);
      phi.value.push_back(visits.empty() ? 0.0 + start_term : 0.0 + start_term + term);
    } else {
      const bool visit_first = column < global_row;
      phi.col.push_back(visit_first ? column : global_row);
      phi.col.push_back(visit_first ? global_row : column);
      phi.value.push_back(0.0 + (visit_first ? term : start_term));
      phi.value.push_back(0.0 + (visit_first ? start_term : term));
    }
    phi.indptr.push_back(static_cast<std::int64_t>(phi.col.size()));
    visits.clear();
    return;
  }
  const size_t n = prepare_row(visits, global_row, walkers);
  RowVisit* v = visits.data();
  // One walker visits each step once: every (column, step) run is one visit long.
  const size_t columns = walkers == 1 ? sum_row_runs<true>(v, n, f, inv_n) : sum_row_runs<false>(v, n, f, inv_n);
  for (size_t c = 0; c < columns; ++c) {
    std::int64_t column;
    double value;
    const auto* entry = reinterpret_cast<const unsigned char*>(v + c);
    std::memcpy(&column, entry, sizeof column);
    std::memcpy(&value, entry + sizeof column, sizeof value);
    phi.col.push_back(column);
    phi.value.push_back(value);
  }
  phi.indptr.push_back(static_cast<std::int64_t>(phi.col.size()));
  visits.clear();
}

void append_combined_row(SparseRows& phi, const LengthResolvedGrf& m, std::int64_t i, std::span<const double> f) {
  if (phi.indptr.empty()) phi.indptr.push_back(0);
  const auto end = static_cast<size_t>(m.indptr[static_cast<size_t>(i) + 1]);
  for (auto k = static_cast<size_t>(m.indptr[static_cast<size_t>(i)]); k < end;) {
    const auto col = m.col[k];
    double sum = 0;
    for (; k < end && m.col[k] == col; ++k) {
      const auto t = static_cast<size_t>(m.length[k]);
      if (t < f.size()) sum += f[t] * m.value[k];
    }
    phi.col.push_back(col);
    phi.value.push_back(sum);
  }
  phi.indptr.push_back(static_cast<std::int64_t>(phi.col.size()));
}

SparseRows combine_lengths(const LengthResolvedGrf& m, std::span<const double> f) {
  SparseRows phi;
  phi.indptr.reserve(m.indptr.size());
  phi.indptr.push_back(0);
  phi.col.reserve(m.col.size());  // at most one entry per length-resolved entry
  phi.value.reserve(m.col.size());
  for (std::int64_t i = 0; i < m.n_local(); ++i) append_combined_row(phi, m, i, f);
  return phi;
}

}  // namespace graphrf
