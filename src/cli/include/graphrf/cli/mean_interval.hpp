#pragma once
// The benchmarks' summary of a Monte Carlo figure over seeds: its mean and a 95% interval (1.96 standard errors).
#include <algorithm>
#include <cmath>
#include <vector>

namespace graphrf {

struct MeanInterval {
  double mean = 0, half_width = 0;  // 95%: 1.96 standard errors
};

inline MeanInterval mean_interval(const std::vector<double>& x) {
  const double n = static_cast<double>(x.size());
  double sum = 0, sum_sq = 0;
  for (const double v : x) sum += v, sum_sq += v * v;
  MeanInterval out;
  out.mean = sum / n;
  const double var = n > 1 ? std::max(0.0, (sum_sq - n * out.mean * out.mean) / (n - 1)) : 0.0;
  out.half_width = 1.96 * std::sqrt(var / n);
  return out;
}

}  // namespace graphrf
