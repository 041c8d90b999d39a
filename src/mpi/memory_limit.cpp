#include "graphrf/mpi/memory_limit.hpp"

#include <algorithm>

#include "graphrf/core/error.hpp"
#include "graphrf/core/memory_size.hpp"
#include "graphrf/mpi/run_summary.hpp"

namespace graphrf {

namespace {

// The ranks of `comm` on this node, the bytes they hold (own_resident_bytes summed) and this rank's part.
struct NodeRanks {
  int count = 1;
  std::uint64_t held = 0, mine = 0;
};
NodeRanks ranks_on_this_node(const Communicator& comm) {
  MPI_Comm node = MPI_COMM_NULL;
  check_mpi(MPI_Comm_split_type(comm.get(), MPI_COMM_TYPE_SHARED, comm.rank(), MPI_INFO_NULL, &node),
            "MPI_Comm_split_type");
  NodeRanks out;
  MPI_Comm_size(node, &out.count);
  out.mine = own_resident_bytes();
  check_mpi(MPI_Allreduce(&out.mine, &out.held, 1, MPI_UINT64_T, MPI_SUM, node), "MPI_Allreduce");
  MPI_Comm_free(&node);
  return out;
}

double total_bytes(std::span<const MemoryPart> parts) {
  double total = 0;
  for (const MemoryPart& part : parts) total += part.bytes;
  return total;
}

}  // namespace

std::uint64_t default_memory_limit(std::uint64_t available, std::uint64_t node_held, int node_ranks,
                                   std::uint64_t address_space_left, std::uint64_t own_held) {
  const std::uint64_t node_bytes = available == 0 ? 0 : available + node_held;
  const std::uint64_t share = node_bytes / static_cast<std::uint64_t>(std::max(node_ranks, 1));
  // A rank under an address-space limit (prlimit --as) cannot allocate beyond it whatever the node has; what it
  // holds already is mapped, so it counts on that side too.
  return smaller_known(node_bytes == 0 ? 0 : std::max<std::uint64_t>(share, 1),
                       address_space_left == 0 ? 0 : address_space_left + own_held);
}

std::uint64_t memory_limit_per_rank(const Communicator& comm, std::uint64_t option_bytes) {
  if (option_bytes > 0) return option_bytes;
  const NodeRanks node = ranks_on_this_node(comm);
  const std::uint64_t mine = default_memory_limit(available_memory_bytes(), node.held, node.count,
                                                  address_space_left_bytes(), node.mine);
  // Unknown on any rank: no limit anywhere (the maximum of "unknown" markers decides).
  const std::uint64_t unknown = comm.max<std::uint64_t>(mine == 0 ? 1 : 0);
  if (unknown) return 0;
  return comm.min<std::uint64_t>(mine);
}

void check_memory_fits(const Communicator& comm, double need_bytes_per_rank, std::uint64_t limit,
                       const std::string& what) {
  const double need = comm.max(need_bytes_per_rank);
  if (limit == 0 || need <= static_cast<double>(limit)) return;
  throw InputError(what + " needs about " + format_bytes(need) + " per rank, more than the " +
                       format_bytes(static_cast<double>(limit)) +
                       " per rank this run may use (--memory-limit; default: the node's available memory plus what "
                       "the run's ranks there already hold, divided among them, within the address-space limit)",
                   /*collective=*/true);
}

std::string describe_memory_max(const Communicator& comm, std::span<const MemoryPart> parts, int decimals) {
  std::string out;
  for (const MemoryPart& part : parts)
    out += (out.empty() ? "" : " + ") + std::string(part.name) + " " + fmt(comm.max(part.bytes) / kMiB, decimals);
  return out + " = " + fmt(comm.max(total_bytes(parts)) / kMiB, decimals) + " MiB";
}

double announce_memory_estimate(const Communicator& comm, const Log& log, std::span<const MemoryPart> parts,
                                const std::string& detail, std::uint64_t memory_limit_option, const std::string& what) {
  // One decimal: the smallest runs need well under a MiB.
  log.info("memory      estimate per rank (max): " + describe_memory_max(comm, parts, 1) + " (" + detail + ")");
  const double need = comm.max(total_bytes(parts));
  check_memory_fits(comm, need, memory_limit_per_rank(comm, memory_limit_option), what);
  return need;
}

}  // namespace graphrf
