#include "graphrf/reference/laplacian_function_columns.hpp"

#include <cmath>

#include "graphrf/spectral/chebyshev.hpp"

namespace graphrf {

FunctionColumns laplacian_function_columns(const DistributedOperator& laplacian, double lambda_max,
                                           const std::function<double(double)>& h, const Eigen::MatrixXd& x_local,
                                           double tolerance) {
  // Interpolate at doubling degrees until the upper half of the coefficients is below tolerance (a fixed
  // high degree would not do: rounding leaves every coefficient near 1e-17, and a thousand of them add up).
  std::vector<double> c;
  double total = 0;
  for (int trial = 16;; trial *= 2) {
    c = chebyshev_coefficients(h, trial, lambda_max, 2 * trial + 1);
    total = std::abs(c[0]) / 2;
    for (size_t k = 1; k < c.size(); ++k) total += std::abs(c[k]);
    double upper = 0;
    for (size_t k = c.size() / 2; k < c.size(); ++k) upper += std::abs(c[k]);
    if (upper <= tolerance * total || trial >= kMaxReferenceChebyshevDegree) break;
  }
  // Smallest degree whose tail sum is within tolerance of the total.
  double tail = 0;
  size_t degree = c.size() - 1;
  while (degree > 0 && tail + std::abs(c[degree]) <= tolerance * total) tail += std::abs(c[degree--]);
  c.resize(degree + 1);
  FunctionColumns out;
  out.degree = static_cast<int>(degree);
  out.truncation_bound = tail;
  out.local = chebyshev_filter(laplacian, lambda_max, {c}, x_local)[0];
  return out;
}

}  // namespace graphrf
