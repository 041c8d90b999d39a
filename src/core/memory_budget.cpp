#include "graphrf/core/memory_budget.hpp"

#include <atomic>

#include "graphrf/core/error.hpp"
#include "graphrf/core/memory_size.hpp"

namespace graphrf {

namespace {
std::atomic<std::uint64_t> budget{0};
}  // namespace

void set_memory_budget(std::uint64_t bytes_per_rank) { budget = bytes_per_rank; }

std::uint64_t memory_budget() { return budget; }

void require_memory(double bytes, const std::string& what) {
  const std::uint64_t limit = budget;
  if (limit == 0 || bytes <= static_cast<double>(limit)) return;
  throw InputError(what + " needs about " + format_bytes(bytes) + " per rank, more than the " +
                   format_bytes(static_cast<double>(limit)) +
                   " per rank this run may use (--memory-limit; default: the node's available memory divided among "
                   "its ranks, within the address-space limit)");
}

}  // namespace graphrf
