#include "graphrf/grf/grf_matrix.hpp"

#include <algorithm>
#include <tuple>

namespace graphrf {

LengthResolvedGrf assemble_length_resolved(std::vector<Deposit> deposits, std::int64_t first_row, std::int64_t n_local,
                                           std::int64_t walkers) {
  // Deposits arrive in runs of one row (a walk's visits on one rank). Group the runs by row with a
  // counting sort of runs, not of deposits: no second copy of the deposits, and sequential reads.
  struct Run {
    std::int64_t begin, end;
  };
  std::vector<std::int64_t> first_run(static_cast<size_t>(n_local) + 1, 0);
  std::vector<std::uint32_t> run_row;
  std::vector<Run> runs;
  for (size_t k = 0; k < deposits.size();) {
    size_t e = k + 1;
    while (e < deposits.size() && deposits[e].row == deposits[k].row) ++e;
    runs.push_back({static_cast<std::int64_t>(k), static_cast<std::int64_t>(e)});
    run_row.push_back(deposits[k].row);
    ++first_run[deposits[k].row + 1];
    k = e;
  }
  for (size_t i = 0; i < static_cast<size_t>(n_local); ++i) first_run[i + 1] += first_run[i];
  std::vector<Run> by_row(runs.size());
  {
    auto next = first_run;
    for (size_t r = 0; r < runs.size(); ++r) by_row[static_cast<size_t>(next[run_row[r]]++)] = runs[r];
  }
  LengthResolvedGrf m;
  m.indptr.assign(static_cast<size_t>(n_local) + 1, 0);
  const size_t most = deposits.size() + static_cast<size_t>(n_local);  // one entry per deposit at most, plus M_0
  m.col.reserve(most);  // no regrowth
  m.length.reserve(most);
  m.value.reserve(most);
  const double inv_n = 1.0 / static_cast<double>(walkers);
  std::vector<Deposit> row;
  for (size_t i = 0; i < static_cast<size_t>(n_local); ++i) {
    // The n unit loads at (start, step 0), as one deposit carrying their exact sum n.
    row.assign(1, Deposit{first_row + static_cast<std::int64_t>(i), static_cast<double>(walkers), 0, 0});
    for (auto r = first_run[i]; r < first_run[i + 1]; ++r)
      row.insert(row.end(), deposits.begin() + by_row[static_cast<size_t>(r)].begin, deposits.begin() + by_row[static_cast<size_t>(r)].end);
    auto begin = row.begin(), end = row.end();
    // (col, step) packed into one integer key: columns stay below 2^43 and steps below 2^20 (max_length
    // is at most 100000), so the packed order is the (col, step) order and comparisons are cheap.
    std::sort(begin, end, [](const Deposit& a, const Deposit& b) {
      const auto ka = (static_cast<std::uint64_t>(a.col) << 20) | static_cast<std::uint64_t>(a.step);
      const auto kb = (static_cast<std::uint64_t>(b.col) << 20) | static_cast<std::uint64_t>(b.step);
      return ka < kb || (ka == kb && a.load < b.load);
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
  phi.col.reserve(m.col.size());  // at most one entry per length-resolved entry
  phi.value.reserve(m.col.size());
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
