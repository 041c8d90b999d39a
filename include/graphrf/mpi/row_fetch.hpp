#pragma once
// Fetches fixed-width rows of a row-distributed table from their owners: each rank asks for the rows it
// needs (sorted, unique global indices) and receives them in that order. One alltoallv of indices and one
// of values; counts are 64-bit throughout.
#include <cstdint>
#include <span>
#include <vector>

#include "graphrf/mpi/block_distribution.hpp"
#include "graphrf/mpi/communicator.hpp"
#include "graphrf/mpi/host_topology.hpp"

namespace graphrf {

// owned: n_owned x width values (row-major) for rows [dist.first(rank), ...). Returns needed.size() x width.
std::vector<double> fetch_rows(const Communicator& comm, const BlockDistribution& dist, std::span<const std::int64_t> needed,
                               std::span<const double> owned, std::int64_t width);

// The same rows, but those owned by ranks of my host are read from a shared copy of the host's tables (each
// rank publishes its owned rows once); only rows of other hosts travel. hosts null: the message path above.
std::vector<double> fetch_rows(const Communicator& comm, const HostTopology* hosts, const BlockDistribution& dist,
                               std::span<const std::int64_t> needed, std::span<const double> owned, std::int64_t width);

}  // namespace graphrf
