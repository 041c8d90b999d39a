#include "graphrf/io/finite_values.hpp"

#include <cmath>

namespace graphrf {

namespace {
template <class T>
std::int64_t first_bad(const T* values, std::size_t n, bool nan_allowed) {
  for (std::size_t k = 0; k < n; ++k)
    if (std::isinf(values[k]) || (!nan_allowed && std::isnan(values[k]))) return static_cast<std::int64_t>(k);
  return -1;
}
}  // namespace

std::int64_t first_non_finite(H5Element type, const void* data, std::size_t n, bool nan_allowed) {
  if (type == H5Element::f64) return first_bad(static_cast<const double*>(data), n, nan_allowed);
  if (type == H5Element::f32) return first_bad(static_cast<const float*>(data), n, nan_allowed);
  return -1;
}

}  // namespace graphrf
