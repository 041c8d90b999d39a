#pragma once
// A relative Frobenius error ||E||_F / ||R||_F over N rows, estimated from a uniform sample of rows drawn
// without replacement: the ratio estimator sum_S e_i / sum_S r_i (e_i = ||E_i||^2, r_i = ||R_i||^2) with
// its delta-method standard error (Cochran, Sampling Techniques, 1977, section 6.4), finite population
// correction included, so a sample of all N rows gives the exact error and a zero standard error.
#include <cstdint>
#include <span>

namespace graphrf {

struct SampledError {
  double value = 0;           // estimate of ||E||_F / ||R||_F
  double standard_error = 0;  // of that estimate
  std::int64_t samples = 0;   // rows looked at
  std::int64_t rows = 0;      // N
  bool exact() const { return samples == rows; }
};

// row_error_sq[i] = ||E_i||^2 and row_reference_sq[i] = ||R_i||^2 for the sampled rows; n_rows = N.
SampledError sampled_relative_error(std::span<const double> row_error_sq, std::span<const double> row_reference_sq,
                                    std::int64_t n_rows);

}  // namespace graphrf
