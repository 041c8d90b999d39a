#pragma once
// Fetches fixed-width rows of a row-distributed table from their owners: each rank asks for the rows it
// needs (sorted, unique global indices) and receives them in that order. One alltoallv of indices and one
// of values; counts are 64-bit throughout.
#include <cstdint>
#include <span>
#include <vector>

#include "graphrf/mpi/block_distribution.hpp"
#include "graphrf/mpi/communicator.hpp"

namespace graphrf {

// owned: n_owned x width values (row-major) for rows [dist.first(rank), ...). Returns needed.size() x width.
std::vector<double> fetch_rows(const Communicator& comm, const BlockDistribution& dist, std::span<const std::int64_t> needed,
                               std::span<const double> owned, std::int64_t width);

}  // namespace graphrf
