#pragma once
// The memory one rank of this run may use, known process-wide, so that a reader can refuse a size an input
// declares before allocating it (a 1 KB HDF5 file can declare a dataset of terabytes). The command line sets
// it once per run (--memory-limit, else the node's share; graphrf/mpi/memory_limit.hpp); a library caller
// that never sets it gets no check.
#include <cstdint>
#include <string>

namespace graphrf {

void set_memory_budget(std::uint64_t bytes_per_rank);  // 0: no check
std::uint64_t memory_budget();

// Throws InputError "WHAT needs about X, more than the Y per rank this run may use (--memory-limit ...)"
// when `bytes` exceeds the budget. Local to this rank: call it where the ranks agree on errors.
void require_memory(double bytes, const std::string& what);

}  // namespace graphrf
