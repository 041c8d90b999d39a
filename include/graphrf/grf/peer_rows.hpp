#pragma once
// Rows built by a peer on the same host go home. When ranks of a host share out their start rows for balance
// (start_row_claims.hpp), a rank that ran out of its own walked the back end of a peer's rows and built them
// there; after the walks each owner receives those ranges and appends them behind the rows it built itself, so
// that every rank again holds exactly its own rows in order. The rows are bitwise what the owner would have built.
#include <cstdint>
#include <vector>

#include "graphrf/grf/grf_row_assembler.hpp"
#include "graphrf/mpi/communicator.hpp"

namespace graphrf {

// Collective over comm. `own` holds this rank's rows 0 .. own_rows_end - 1; `built_for_peers` are the ranges this
// rank built for others. Returns all n_local rows of this rank; throws Error when the ranges received do not
// cover own_rows_end .. n_local - 1 exactly.
AssembledGrf return_peer_rows(const Communicator& comm, AssembledGrf own, std::int64_t own_rows_end, std::int64_t n_local,
                              std::vector<PeerRows> built_for_peers);

}  // namespace graphrf
