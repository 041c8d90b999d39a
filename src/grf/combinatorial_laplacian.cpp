#include "graphrf/grf/combinatorial_laplacian.hpp"

#include <algorithm>
#include <cmath>

namespace graphrf {

void bind_combinatorial_laplacian(const DistributedGraph& g, WalkOptions& walk, KernelSpec& kernel) {
  if (walk.weights != WeightMode::combinatorial) return;
  const double d_max = max_weighted_degree(g);
  // Without edges L = 0, and any scale gives W = I; 1 keeps beta as given.
  walk.max_degree = d_max > 0.0 ? d_max : 1.0;
  kernel.laplacian_scale = walk.max_degree;
}

int series_terms_needed(const KernelSpec& kernel, double tolerance, int max_terms) {
  const std::vector<double> f = kernel_f(kernel, max_terms);
  double total = 0;
  for (double v : f) total += std::abs(v);
  double tail = total;
  for (int k = 0; k < max_terms; ++k) {
    tail -= std::abs(f[static_cast<size_t>(k)]);
    if (tail <= tolerance * total) return k + 1;
  }
  return max_terms;
}

double row_sum_relative_variance(const std::vector<double>& f, double p_halt) {
  // sum_{s,t} a_s a_t x^min(s,t) with x = 1/(1 - p) = sum_m x^m (a_m^2 + 2 a_m sum_{t>m} a_t), by suffix sums.
  const double x = 1.0 / (1.0 - p_halt);
  double later = 0, mean = 0, second = 0;
  for (auto m = f.size(); m-- > 0;) {
    const double a = std::abs(f[m]);
    second += std::pow(x, static_cast<double>(m)) * a * (a + 2.0 * later);
    later += a;
  }
  mean = later;
  if (!(mean > 0.0)) return 0.0;
  return std::max(0.0, second / (mean * mean) - 1.0);
}

}  // namespace graphrf
