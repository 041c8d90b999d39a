#include "graphrf/mpi/traffic.hpp"

#include <atomic>

namespace graphrf {

namespace {
std::atomic<std::int64_t> g_sent_bytes{0};
}

void count_sent_bytes(std::int64_t bytes) { g_sent_bytes.fetch_add(bytes, std::memory_order_relaxed); }
std::int64_t sent_bytes_total() { return g_sent_bytes.load(std::memory_order_relaxed); }

}  // namespace graphrf
