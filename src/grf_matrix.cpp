#include "graphrf/grf_matrix.hpp"

#include <algorithm>
#include <tuple>

namespace graphrf {

LengthResolvedGrf assemble_length_resolved(HugeVector<Deposit> deposits, std::int64_t first_row, std::int64_t n_local,
                                           std::int64_t walkers) {
  // Counting sort by row, then a small sort inside each row.
  std::vector<std::int64_t> start(static_cast<size_t>(n_local) + 1, 0);
  for (const auto& d : deposits) ++start[static_cast<size_t>(d.row - first_row) + 1];
  for (size_t i = 0; i < static_cast<size_t>(n_local); ++i) start[i + 1] += start[i];
  HugeVector<Deposit> sorted(deposits.size());
  {
    auto fill = start;
    for (const auto& d : deposits) sorted[static_cast<size_t>(fill[static_cast<size_t>(d.row - first_row)]++)] = d;
  }
  HugeVector<Deposit>().swap(deposits);
  LengthResolvedGrf m;
  m.indptr.assign(static_cast<size_t>(n_local) + 1, 0);
  const double inv_n = 1.0 / static_cast<double>(walkers);
  for (size_t i = 0; i < static_cast<size_t>(n_local); ++i) {
    auto begin = sorted.begin() + start[i], end = sorted.begin() + start[i + 1];
    std::sort(begin, end, [](const Deposit& a, const Deposit& b) {
      return std::tie(a.col, a.step, a.walker) < std::tie(b.col, b.step, b.walker);
    });
    for (auto it = begin; it != end;) {
      double sum = 0;
      auto run = it;
      for (; run != end && run->col == it->col && run->step == it->step; ++run) sum += run->load;
      m.col.push_back(it->col);
      m.length.push_back(it->step);
      m.value.push_back(sum * inv_n);
      it = run;
    }
    m.indptr[i + 1] = static_cast<std::int64_t>(m.col.size());
  }
  return m;
}

SparseRows combine_lengths(const LengthResolvedGrf& m, std::span<const double> f) {
  SparseRows phi;
  phi.indptr.assign(m.indptr.size(), 0);
  for (size_t i = 0; i + 1 < m.indptr.size(); ++i) {
    for (auto k = static_cast<size_t>(m.indptr[i]); k < static_cast<size_t>(m.indptr[i + 1]);) {
      const auto col = m.col[k];
      double sum = 0;
      for (; k < static_cast<size_t>(m.indptr[i + 1]) && m.col[k] == col; ++k) {
        const auto t = static_cast<size_t>(m.length[k]);
        if (t < f.size()) sum += f[t] * m.value[k];
      }
      phi.col.push_back(col);
      phi.value.push_back(sum);
    }
    phi.indptr[i + 1] = static_cast<std::int64_t>(phi.col.size());
  }
  return phi;
}

}  // namespace graphrf
