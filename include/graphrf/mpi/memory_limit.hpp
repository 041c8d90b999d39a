#pragma once
// The memory budget of one rank and the check that a phase fits in it, decided the same way on every rank.
#include <cstdint>
#include <span>
#include <string>

#include "graphrf/core/memory_size.hpp"
#include "graphrf/mpi/communicator.hpp"
#include "graphrf/mpi/log.hpp"

namespace graphrf {

// Bytes one rank may use: `option_bytes` (--memory-limit, per rank) when non-zero, else the memory its node
// has available (available_memory_bytes()) divided by the ranks sharing that node, and no more than the
// address space the rank may still map (RLIMIT_AS, address_space_left_bytes()). What the run's ranks hold
// already (their resident memory, the host's shared arrays once) counts as theirs: a check made after loading
// compares estimates that include the loaded graph with the memory the run has, not with what is left beside
// it. The minimum over all ranks, so every rank holds the same value. 0: unknown (no check is made).
std::uint64_t memory_limit_per_rank(const Communicator& comm, std::uint64_t option_bytes);

// The default from the node's figures (0: unknown): (available + node_held) / node_ranks, where node_held is what
// the run's ranks on the node hold already, and no more than address_space_left + own_held (this rank's holding).
std::uint64_t default_memory_limit(std::uint64_t available, std::uint64_t node_held, int node_ranks,
                                   std::uint64_t address_space_left, std::uint64_t own_held);

// Collective: when need_bytes_per_rank exceeds `limit` (non-zero), every rank throws the same InputError
// "WHAT needs about X per rank, more than the Y per rank this run may use (--memory-limit ...)".
void check_memory_fits(const Communicator& comm, double need_bytes_per_rank, std::uint64_t limit,
                       const std::string& what);

// Collective: "graph A + output B + ... = T MiB" with `decimals` decimals, each figure the maximum over ranks
// (so the parts need not add up to T, the maximum of their sums).
std::string describe_memory_max(const Communicator& comm, std::span<const MemoryPart> parts, int decimals);

// Collective: says a run's estimate before its work ("memory      estimate per rank (max): PARTS (DETAIL)", one
// decimal) and checks it against the run's limit (memory_limit_per_rank of `memory_limit_option`), refusing
// the run as check_memory_fits does, naming WHAT. Returns the estimate's maximum over ranks, in bytes.
double announce_memory_estimate(const Communicator& comm, const Log& log, std::span<const MemoryPart> parts,
                                const std::string& detail, std::uint64_t memory_limit_option, const std::string& what);

}  // namespace graphrf
