#pragma once
// Canonical numbering of string node ids: a distributed sample sort of names by their bytes. Every rank
// passes its distinct names (ascending); names are routed to buckets bounded by splitters drawn from a sample,
// each rank sorts and deduplicates its bucket, and an exclusive scan of bucket sizes turns positions into
// canonical indices. No rank holds more than its bucket and the splitters. Collective.
#include <cstdint>
#include <vector>

#include "graphrf/io/node_names.hpp"
#include "graphrf/mpi/block_distribution.hpp"
#include "graphrf/mpi/communicator.hpp"

namespace graphrf {

struct SortedNames {
  BlockDistribution dist;                  // canonical index ranges per rank (rank order = byte order)
  NodeNames owned;                         // this rank's block: name of canonical index dist.first(rank) + k
  std::vector<std::int64_t> index_of;      // canonical index of each name the caller passed
};

// `local` must be distinct and in ascending byte order (as the edge-list parser returns them).
SortedNames sort_names(const Communicator& comm, const NodeNames& local);

}  // namespace graphrf
