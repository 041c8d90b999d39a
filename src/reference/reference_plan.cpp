#include "graphrf/reference/reference_plan.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "graphrf/core/error.hpp"

namespace graphrf {

void validate(const ReferenceOptions& options) {
  if (options.dense_max < 0 || options.dense_max > kMaxDenseReferenceNodes)
    throw InputError("reference.dense_max: must be in 0 .. " + std::to_string(kMaxDenseReferenceNodes) + " (got " +
                     std::to_string(options.dense_max) + ")");
  if (options.samples < 2)
    throw InputError("reference.samples: must be >= 2 (got " + std::to_string(options.samples) + ")");
}

double dense_eigendecomposition_seconds(std::int64_t n) {
  const double x = static_cast<double>(n);
  return 1.2e-9 * x * x * x;
}

double dense_reference_bytes(const ReferenceOptions& options, std::int64_t n_nodes) {
  if (!options.enabled || !dense_reference(options, n_nodes)) return 0.0;
  const double n = static_cast<double>(n_nodes);
  return kDenseReferenceMatrices * 8.0 * n * n;
}

std::string reference_cost(const ReferenceOptions& options, std::int64_t n_nodes) {
  std::ostringstream s;
  s.precision(2);
  if (dense_reference(options, n_nodes)) {
    const double mb = 8.0 * static_cast<double>(n_nodes) * static_cast<double>(n_nodes) / 1e6;
    s << "dense on rank 0 (N = " << n_nodes << " <= --dense-reference-max " << options.dense_max
      << "): one O(N^3) eigendecomposition, about " << std::fixed << dense_eigendecomposition_seconds(n_nodes)
      << " s on one core, and a few N x N matrices of " << mb << " MB each";
  } else {
    s << "sampled (N = " << n_nodes << " > --dense-reference-max " << options.dense_max << "): exact rows of the kernel for "
      << std::min(options.samples, n_nodes)
      << " random nodes (--reference-samples) by a Chebyshev expansion on the distributed operator, one sparse "
         "product with an N x "
      << std::min(options.samples, n_nodes) << " block per degree; errors come with their standard error";
  }
  return s.str();
}

}  // namespace graphrf
