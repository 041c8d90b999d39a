#include "graphrf/grf/grf_matrix.hpp"

#include <algorithm>

namespace graphrf {

namespace {

// Calls emit(col, step, M_t[i, col]) for every (col, step) of the visits, sorted first into the fixed order
// (RowVisit), with M_0's entry (global_row, 0) in its place. Step 0 is not deposited by the walk engine:
// every walker is at its start node with load 1 then, so the entry is the exact sum n of the n unit loads,
// times 1/n.
template <class Emit>
void for_each_length_resolved_entry(std::vector<RowVisit>& visits, std::int64_t global_row, std::int64_t walkers,
                                    Emit&& emit) {
  std::sort(visits.begin(), visits.end());
  const double inv_n = 1.0 / static_cast<double>(walkers);
  const RowVisit home = row_visit(global_row, 0, 0.0);  // (global_row, 0) precedes every (global_row, t >= 1)
  bool home_done = false;
  for (auto it = visits.begin(), end = visits.end(); it != end;) {
    if (!home_done && *it >= home) {
      emit(global_row, 0, static_cast<double>(walkers) * inv_n);
      home_done = true;
    }
    const auto key = static_cast<std::uint64_t>(*it >> 64);
    double sum = 0;
    auto run = it;
    for (; run != end && static_cast<std::uint64_t>(*run >> 64) == key; ++run) sum += visit_load(*run);
    emit(visit_col(*it), visit_step(*it), sum * inv_n);
    it = run;
  }
  if (!home_done) emit(global_row, 0, static_cast<double>(walkers) * inv_n);
}

}  // namespace

void append_length_resolved_row(LengthResolvedGrf& m, std::vector<RowVisit>& visits, std::int64_t global_row,
                                std::int64_t walkers) {
  if (m.indptr.empty()) m.indptr.push_back(0);
  for_each_length_resolved_entry(visits, global_row, walkers, [&](std::int64_t col, std::int32_t step, double value) {
    m.col.push_back(col);
    m.length.push_back(step);
    m.value.push_back(value);
  });
  m.indptr.push_back(static_cast<std::int64_t>(m.col.size()));
}

void append_grf_row(SparseRows& phi, std::vector<RowVisit>& visits, std::int64_t global_row, std::int64_t walkers,
                    std::span<const double> f) {
  if (phi.indptr.empty()) phi.indptr.push_back(0);
  // The same products, summed in the same order, as append_combined_row over the length-resolved row.
  std::int64_t open_col = -1;
  double sum = 0;
  for_each_length_resolved_entry(visits, global_row, walkers, [&](std::int64_t col, std::int32_t step, double value) {
    if (col != open_col) {
      if (open_col >= 0) phi.value.push_back(sum);
      phi.col.push_back(col);
      open_col = col;
      sum = 0;
    }
    if (static_cast<size_t>(step) < f.size()) sum += f[static_cast<size_t>(step)] * value;
  });
  if (open_col >= 0) phi.value.push_back(sum);
  phi.indptr.push_back(static_cast<std::int64_t>(phi.col.size()));
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
