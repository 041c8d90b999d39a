#pragma once
// Fetches fixed-width rows of a row-distributed table from their owners: each rank asks for the rows it
// needs (sorted, unique global indices) and receives them in that order. One alltoallv of indices, then the
// rows point to point, straight into the result, in messages of at most 8 MiB that owners pack one or two at a
// time; counts are 64-bit throughout.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "graphrf/mpi/block_distribution.hpp"
#include "graphrf/mpi/communicator.hpp"
#include "graphrf/mpi/host_topology.hpp"

namespace graphrf {

// owned: n_owned x width values (row-major) for rows [dist.first(rank), ...). Writes needed.size() x width values
// to `out` (the caller's table, so that rows fetched next to its own need no copy of their own).
void fetch_rows(const Communicator& comm, const BlockDistribution& dist, std::span<const std::int64_t> needed,
                std::span<const double> owned, std::int64_t width, std::span<double> out);

// The same rows (none of them this rank's own), but those owned by ranks of my host are copied from shared
// memory, where each owner publishes the rows its host peers asked for; only rows of other hosts travel, by
// messages between neighbours. hosts null: the message path above.
void fetch_rows(const Communicator& comm, const std::shared_ptr<const HostTopology>& hosts, const BlockDistribution& dist,
                std::span<const std::int64_t> needed, std::span<const double> owned, std::int64_t width,
                std::span<double> out);

}  // namespace graphrf
