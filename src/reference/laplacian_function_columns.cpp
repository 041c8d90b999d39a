#include "graphrf/reference/laplacian_function_columns.hpp"

#include <cmath>

#include "graphrf/spectral/chebyshev.hpp"

namespace graphrf {

FunctionColumns laplacian_function_columns(const DistributedOperator& laplacian, double lambda_max,
                                           const std::function<double(double)>& h, const Eigen::MatrixXd& x_local,
                                           double tolerance) {
  std::vector<double> c = chebyshev_coefficients(h, kMaxReferenceChebyshevDegree, lambda_max);
  double total = std::abs(c[0]) / 2;
  for (size_t k = 1; k < c.size(); ++k) total += std::abs(c[k]);
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
