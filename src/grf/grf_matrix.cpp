#include "graphrf/grf/grf_matrix.hpp"

#include <algorithm>

#include "graphrf/grf/visit_sort.hpp"

namespace graphrf {

namespace {

// The row's visits with M_0's entry among them (every walker is at its start node with load 1 at step 0, which
// the walk engine does not deposit: one entry (global_row, 0) of load n, the exact sum of the n unit loads),
// in the fixed order (RowVisit), then a sentinel that ends every run. Returns the number of entries before it.
size_t prepare_row(std::vector<RowVisit>& visits, std::int64_t global_row, std::int64_t walkers) {
  visits.push_back(row_visit(global_row, 0, static_cast<double>(walkers)));
  sort_row_visits(visits.data(), visits.size());
  const size_t n = visits.size();
  visits.push_back(~RowVisit{0});  // a key no visit has (columns stay below 2^43)
  return n;
}

inline std::uint64_t key_of(RowVisit v) { return static_cast<std::uint64_t>(v >> 64); }

// f_t, zero beyond f's length (a predictable branch: f usually covers every step).
inline double modulation(std::span<const double> f, std::uint64_t t) { return t < f.size() ? f[t] : 0.0; }

}  // namespace

// The emission loops below take no data-dependent branch: every visit extends its (column, step) run and its
// column's sum with selects, writes the current entry, and advances the output by one where a run or column
// ends. Sums start from 0.0, as written out: sum = 0.0 + l1 + l2 + ... in the fixed order, and
// Phi[i, c] = 0.0 + f_t1 M_t1[i, c] + f_t2 M_t2[i, c] + ... over ascending t.
void append_length_resolved_row(LengthResolvedGrf& m, std::vector<RowVisit>& visits, std::int64_t global_row,
                                std::int64_t walkers) {
  if (m.indptr.empty()) m.indptr.push_back(0);
  const size_t n = prepare_row(visits, global_row, walkers);
  const size_t base = m.col.size();
  m.col.resize(base + n);
  m.length.resize(base + n);
  m.value.resize(base + n);
  std::int64_t* col = m.col.data() + base;
  std::int32_t* length = m.length.data() + base;
  double* value = m.value.data() + base;
  const double inv_n = 1.0 / static_cast<double>(walkers);
  std::uint64_t previous = ~std::uint64_t{0};
  double sum = 0;
  size_t out = 0;
  for (size_t k = 0; k < n; ++k) {
    const std::uint64_t key = key_of(visits[k]), next = key_of(visits[k + 1]);
    sum = (key == previous ? sum : 0.0) + visit_load(visits[k]);
    col[out] = static_cast<std::int64_t>(key >> 20);
    length[out] = static_cast<std::int32_t>(key & 0xFFFFF);
    value[out] = sum * inv_n;
    out += key != next;
    previous = key;
  }
  m.col.resize(base + out);
  m.length.resize(base + out);
  m.value.resize(base + out);
  m.indptr.push_back(static_cast<std::int64_t>(m.col.size()));
  visits.clear();
}

void append_grf_row(SparseRows& phi, std::vector<RowVisit>& visits, std::int64_t global_row, std::int64_t walkers,
                    std::span<const double> f) {
  if (phi.indptr.empty()) phi.indptr.push_back(0);
  // The same products, summed in the same order, as append_combined_row over the length-resolved row.
  const size_t n = prepare_row(visits, global_row, walkers);
  // Entries are written in place over the sorted visits (the k-th entry never overtakes the k-th visit) and
  // appended to the output in one copy each, not one push per entry.
  auto* col = reinterpret_cast<std::int64_t*>(visits.data());
  auto* value = reinterpret_cast<double*>(visits.data()) + 1;
  const double inv_n = 1.0 / static_cast<double>(walkers);
  std::uint64_t previous = ~std::uint64_t{0}, open_col = ~std::uint64_t{0};
  double sum = 0, phi_sum = 0;
  size_t out = 0;
  for (size_t k = 0; k < n; ++k) {
    const std::uint64_t key = key_of(visits[k]), next = key_of(visits[k + 1]);
    const std::uint64_t c = key >> 20;
    sum = (key == previous ? sum : 0.0) + visit_load(visits[k]);
    const double term = modulation(f, key & 0xFFFFF) * (sum * inv_n);
    const bool run_ends = key != next;
    const double grown = (c == open_col ? phi_sum : 0.0) + term;
    phi_sum = run_ends ? grown : phi_sum;
    open_col = run_ends ? c : open_col;
    col[2 * out] = static_cast<std::int64_t>(c);  // entry `out` overwrites visit `out` <= k, already read
    value[2 * out] = phi_sum;
    out += run_ends && c != (next >> 20);
    previous = key;
  }
  const size_t base = phi.col.size();
  phi.col.resize(base + out);
  phi.value.resize(base + out);
  for (size_t e = 0; e < out; ++e) {
    phi.col[base + e] = col[2 * e];
    phi.value[base + e] = value[2 * e];
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
