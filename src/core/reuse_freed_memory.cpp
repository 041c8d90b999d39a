#include "graphrf/core/reuse_freed_memory.hpp"

#include <malloc.h>

namespace graphrf {

void reuse_freed_memory() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_MAX, 0);            // every block from the heap, none by mmap (which returns it at free)
  mallopt(M_TRIM_THRESHOLD, 1 << 30);  // the top of the heap goes back to the kernel only past 1 GiB free
#endif
}

}  // namespace graphrf
