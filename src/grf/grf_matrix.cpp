#include "graphrf/grf/grf_matrix.hpp"

#include <algorithm>

namespace graphrf {

void append_length_resolved_row(LengthResolvedGrf& m, std::vector<Deposit>& visits, std::int64_t global_row,
                                std::int64_t walkers) {
  if (m.indptr.empty()) m.indptr.push_back(0);
  // The n unit loads at (start, step 0), as one deposit carrying their exact sum n.
  visits.push_back(Deposit{global_row, static_cast<double>(walkers), 0, 0});
  // (col, step) packed into one integer key: columns stay below 2^43 and steps below 2^20 (max_length
  // is at most 100000), so the packed order is the (col, step) order and comparisons are cheap. Equal
  // keys add up in ascending order of load: a fixed order, whatever order the visits arrived in.
  std::sort(visits.begin(), visits.end(), [](const Deposit& a, const Deposit& b) {
    const auto ka = (static_cast<std::uint64_t>(a.col) << 20) | static_cast<std::uint64_t>(a.step);
    const auto kb = (static_cast<std::uint64_t>(b.col) << 20) | static_cast<std::uint64_t>(b.step);
    return ka < kb || (ka == kb && a.load < b.load);
  });
  const double inv_n = 1.0 / static_cast<double>(walkers);
  for (auto it = visits.begin(), end = visits.end(); it != end;) {
    double sum = 0;
    auto run = it;
    for (; run != end && run->col == it->col && run->step == it->step; ++run) sum += run->load;
    m.col.push_back(it->col);
    m.length.push_back(it->step);
    m.value.push_back(sum * inv_n);
    it = run;
  }
  m.indptr.push_back(static_cast<std::int64_t>(m.col.size()));
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
