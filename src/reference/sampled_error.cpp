#include "graphrf/reference/sampled_error.hpp"

#include <cmath>
#include <stdexcept>

namespace graphrf {

SampledError sampled_relative_error(std::span<const double> row_error_sq, std::span<const double> row_reference_sq,
                                    std::int64_t n_rows) {
  if (row_error_sq.size() != row_reference_sq.size() || row_error_sq.empty() ||
      static_cast<std::int64_t>(row_error_sq.size()) > n_rows)
    throw std::invalid_argument("sampled_relative_error: need 1 .. N sampled rows with both norms");
  const auto s = static_cast<std::int64_t>(row_error_sq.size());
  double sum_e = 0, sum_r = 0;
  for (std::int64_t i = 0; i < s; ++i) sum_e += row_error_sq[static_cast<size_t>(i)], sum_r += row_reference_sq[static_cast<size_t>(i)];
  SampledError out;
  out.samples = s;
  out.rows = n_rows;
  if (sum_r == 0) {
    out.value = sum_e == 0 ? 0.0 : INFINITY;
    return out;
  }
  const double ratio = sum_e / sum_r;  // estimates ||E||_F^2 / ||R||_F^2
  out.value = std::sqrt(ratio);
  if (s < 2 || s == n_rows || ratio == 0) return out;
  double residual_sq = 0;
  for (std::int64_t i = 0; i < s; ++i) {
    const double d = row_error_sq[static_cast<size_t>(i)] - ratio * row_reference_sq[static_cast<size_t>(i)];
    residual_sq += d * d;
  }
  const double mean_r = sum_r / static_cast<double>(s);
  const double fpc = 1.0 - static_cast<double>(s) / static_cast<double>(n_rows);
  const double se_ratio = std::sqrt(fpc * residual_sq / (static_cast<double>(s - 1) * static_cast<double>(s))) / mean_r;
  out.standard_error = se_ratio / (2.0 * out.value);  // d sqrt(x) = dx / (2 sqrt(x))
  return out;
}

}  // namespace graphrf
