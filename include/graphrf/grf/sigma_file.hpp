#pragma once
// The text file of a learned sigma-coupling, read back by --coupling sigma --sigma FILE: two comment lines (how it
// was learned, its cost against the identity and a uniform permutation), then sigma 1-based on one line.
#include <string>

#include "graphrf/grf/couple_run.hpp"
#include "graphrf/mpi/communicator.hpp"

namespace graphrf {

// Rank 0 writes a temporary file and publishes it at `path` by rename; every rank throws the same InputError
// naming --out when it cannot. `learned_by` is the command line, for the first comment. Collective.
void write_sigma_file(const Communicator& comm, const std::string& path, const CoupleResult& result,
                      const std::string& learned_by);

}  // namespace graphrf
