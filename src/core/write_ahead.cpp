#include "graphrf/core/write_ahead.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14; older C libraries lack the name
#endif

namespace graphrf {

void WriteAhead::follow_bytes(const void* data, std::size_t used, std::size_t capacity) {
  if (data != data_) {  // a new or reallocated array: what was copied into it is backed
    data_ = data;
    faulted_ = used;
  }
  if (!supported_ || used + kBatchBytes / 2 < faulted_ || faulted_ >= capacity) return;
  static const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto base = reinterpret_cast<std::uintptr_t>(data);
  // Whole pages from the first one not yet known to be backed to a batch past the write position.
  const std::uintptr_t from = (base + std::max(faulted_, used) + page - 1) / page * page;
  const std::uintptr_t to = std::min(base + capacity, base + used + kBatchBytes) / page * page;
  if (to > from && ::madvise(reinterpret_cast<void*>(from), to - from, MADV_POPULATE_WRITE) != 0) {
    supported_ = false;  // EINVAL on kernels without it; ENOMEM leaves the pages to be faulted on touch
    return;
  }
  faulted_ = std::max(faulted_, to - base);
}

}  // namespace graphrf
