#pragma once
// Memory sizes: what the machine has for this process (MemAvailable, capped by a cgroup memory limit), and
// the "8G" / "512M" / "1.5GiB" spellings of --memory-limit. No MPI: dividing among the ranks of a node is done
// in graphrf/mpi/memory_limit.hpp.
#include <cstdint>
#include <string>

namespace graphrf {

constexpr double kMiB = 1024.0 * 1024.0;  // for the MiB figures runs print

// One named part of a run's memory estimate ("graph", "output", ...), in bytes on this rank.
struct MemoryPart {
  const char* name;
  double bytes;
};

// Bytes available to this process now: /proc/meminfo MemAvailable, lowered to the cgroup's remaining
// allowance (cgroup v2 memory.max - memory.current, or v1 memory.limit_in_bytes - usage) when one is set.
// 0 when nothing can be read (then no limit is applied); at least 1 when something could.
std::uint64_t available_memory_bytes();

// The same computation on given file contents (testable without /proc and /sys); an empty text is absent.
std::uint64_t available_memory_bytes(const std::string& meminfo, const std::string& cgroup_limit,
                                     const std::string& cgroup_usage);

// Address space this process may still map under its RLIMIT_AS (`prlimit --as`, `ulimit -v`): the soft limit
// less the VmSize already mapped (libraries, MPI's shared segments). 0 when there is no such limit; at least
// 1 when there is one.
std::uint64_t address_space_left_bytes();
// The same from given values: `soft_limit` (RLIM_INFINITY or 0: none) and /proc/self/status text.
std::uint64_t address_space_left_bytes(std::uint64_t soft_limit, const std::string& status);

// This process's resident memory and the shared-memory part of it (VmRSS and RssShmem in /proc/self/status), in
// bytes; zeros where unknown.
struct ResidentBytes {
  std::int64_t all = 0, shared = 0;
};
ResidentBytes resident_bytes();

// The smaller of two byte counts where 0 means unknown (0 only when both are).
std::uint64_t smaller_known(std::uint64_t a, std::uint64_t b);

// "123", "64K", "512M", "8G", "1.5T" (powers of 1024; an optional "iB"/"B" suffix; case-insensitive).
// Throws InputError naming `option` for anything else, for zero, and for sizes beyond 2^63 bytes.
std::uint64_t parse_memory_size(const std::string& text, const std::string& option);

// "1.5 GiB", "312 MiB", "900 B".
std::string format_bytes(double bytes);

}  // namespace graphrf
