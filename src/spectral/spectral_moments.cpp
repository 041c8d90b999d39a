// Chebyshev moments by the doubling identity, and filtered probe norms from them. See spectral_moments.hpp.
#include "graphrf/spectral/spectral_moments.hpp"

#include <string>

#include "graphrf/core/error.hpp"
#include "graphrf/spectral/chebyshev_recurrence.hpp"

namespace graphrf {

std::vector<double> chebyshev_moments(const DistributedOperator& op, const RowBlockReducer& sums, double lambda_max,
                                      const Eigen::MatrixXd& probes_local, int degree) {
  if (degree < 1) throw Error("chebyshev_moments: degree must be >= 1 (got " + std::to_string(degree) + ")");
  const Eigen::Index n = probes_local.rows(), b = probes_local.cols();
  std::vector<double> mu(2 * static_cast<size_t>(degree) + 1);
  ChebyshevRecurrence rec(op, lambda_max, probes_local);
  // Per-row contributions <row of Tb_m R, row of Tb_m R> and <row of Tb_m R, row of Tb_{m-1} R>, each a sum in
  // column order, then reduced over rows in RowBlockReducer's fixed order. The reduction runs once per
  // kStepsPerReduction steps on all their columns at once (each column is summed on its own, so the bits are
  // those of one reduction per step): a reduction ships rows to their block's home and walks a tree of
  // messages, which cost as much as the steps themselves when done at every one of them on a partitioned graph.
  constexpr int kStepsPerReduction = 10;
  Eigen::MatrixXd per_row(n, 2 * kStepsPerReduction);
  int first_pending = 0, pending = 0;  // steps first_pending .. first_pending + pending - 1 await reduction
  const auto flush = [&] {
    const auto s = sums.column_sums(per_row.leftCols(2 * pending));
    for (int j = 0; j < pending; ++j) {
      const int m = first_pending + j;
      const double same = s[static_cast<size_t>(2 * j)], cross = s[static_cast<size_t>(2 * j + 1)];
      if (m == 0) {
        mu[0] = same;
        continue;
      }
      if (m == 1) mu[1] = cross;  // Tb_1 Tb_0 = Tb_1
      else mu[2 * m - 1] = 2.0 * cross - mu[1];
      mu[2 * m] = 2.0 * same - mu[0];
    }
    first_pending += pending;
    pending = 0;
  };
  const auto record_step = [&] {
    const ConstPanelView cur = rec.current();
    for (Eigen::Index i = 0; i < n; ++i) {
      double same = 0.0, cross = 0.0;
      for (Eigen::Index c = 0; c < b; ++c) {
        same += cur(i, c) * cur(i, c);
        if (rec.degree() > 0) cross += cur(i, c) * rec.previous()(i, c);
      }
      per_row(i, 2 * pending) = same;
      per_row(i, 2 * pending + 1) = cross;
    }
    if (++pending == kStepsPerReduction) flush();
  };
  record_step();
  for (int m = 1; m <= degree; ++m) {
    rec.advance();
    record_step();
  }
  if (pending > 0) flush();
  return mu;
}

double filtered_norm_from_moments(const std::vector<double>& moments, const std::vector<double>& coeffs) {
  if (coeffs.empty()) return 0.0;
  const size_t m = coeffs.size() - 1;
  if (moments.size() < 2 * m + 1)
    throw Error("filtered_norm_from_moments: a degree-" + std::to_string(m) + " filter needs " + std::to_string(2 * m + 1) +
                " moments (got " + std::to_string(moments.size()) + ")");
  auto c = [&](size_t k) { return k == 0 ? 0.5 * coeffs[0] : coeffs[k]; };
  double x = 0.0;
  for (size_t i = 0; i <= m; ++i) {
    double row = 0.0;
    for (size_t j = 0; j <= m; ++j) row += c(j) * (moments[i + j] + moments[i > j ? i - j : j - i]);
    x += c(i) * row;
  }
  return 0.5 * x;
}

}  // namespace graphrf
