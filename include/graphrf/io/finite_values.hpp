#pragma once
// Finding the first value of an output that is not a number a reader can use (NaN or infinite): results that
// overflowed are refused at the write instead of being published.
#include <cstddef>
#include <cstdint>

#include "graphrf/io/h5_output.hpp"

namespace graphrf {

// Index of the first of the `n` values at `data` (doubles or floats, by `type`; other types have none) that is
// infinite, or NaN unless `nan_allowed` (a dataset where NaN marks a missing value); -1 when there is none.
std::int64_t first_non_finite(H5Element type, const void* data, std::size_t n, bool nan_allowed);

}  // namespace graphrf
