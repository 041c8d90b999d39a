#include "graphrf/grf/grf_matrix.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

#include "graphrf/grf/row_sums.hpp"
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
  const size_t columns = sum_row_runs(v, n, f, inv_n, walkers == 1 ? RunsOfOne::yes : RunsOfOne::no);
  const size_t before = phi.col.size();
  phi.col.resize(before + columns);
  phi.value.resize(before + columns);
  std::int64_t* col = phi.col.data() + before;
  double* value = phi.value.data() + before;
  for (size_t c = 0; c < columns; ++c) {
    const auto* entry = reinterpret_cast<const unsigned char*>(v + c);
    std::memcpy(col + c, entry, sizeof *col);
    std::memcpy(value + c, entry + sizeof *col, sizeof *value);
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
