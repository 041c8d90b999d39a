#pragma once
// The error policy of every graphrf program's main(): an error all ranks agreed on (collective
// InputError) prints one line on rank 0 and every rank returns 1; an error on one rank alone prints one
// line tagged with the rank and ends the whole job with MPI_Abort, so no rank waits forever.
#include <functional>

#include "graphrf/mpi/communicator.hpp"

namespace graphrf {

int run_guarded(const char* program, const Communicator& comm, const std::function<int()>& body);

}  // namespace graphrf
