#pragma once
// How the graphrf process asks glibc to manage the heap. A run allocates and frees the same big temporaries over
// and over (a CG iteration's blocks, a product's gathered rows, a pass's tables). By default glibc hands blocks of
// 32 MB and more to the kernel with mmap and gives every freed block back, so each iteration faults and zeroes
// those pages again: on a 1000 x 1000 grid that was 80% of the GP's learning time. Keeping freed memory in the
// heap for the next allocation costs at most the largest set of temporaries alive at once (peak memory grew by
// 10-20% in the runs measured) and makes repeated products run at memory speed.
namespace graphrf {

// Call once, first thing in main, before large allocations. The executable does; a library embedded in another
// program (the Python package) leaves the host program's allocator alone.
void reuse_freed_memory();

}  // namespace graphrf
