#pragma once
// Software prefetch of one row of a row-major table. Sparse products that gather rows in an order without
// locality (random graphs, expanders) miss the cache on every row; asking for the row a few steps ahead keeps
// several misses in flight instead of one. On cached rows it costs a few instructions.
#include <cstdint>

namespace graphrf {

// Prefetches every cache line of the `bytes` bytes starting at `row` (also the last line of a row that
// straddles one more).
inline void prefetch_row(const void* row, std::int64_t bytes) {
  const char* p = static_cast<const char*>(row);
  for (std::int64_t byte = 0; byte < bytes; byte += 64) __builtin_prefetch(p + byte);
  __builtin_prefetch(p + bytes - 1);
}

}  // namespace graphrf
