#pragma once
// How the graphrf process asks glibc to manage the heap. A run allocates and frees the same big temporaries over
// and over (a CG iteration's blocks, a product's gathered rows, a pass's tables). By default glibc hands blocks of
// 32 MB and more to the kernel with mmap and gives every freed block back, so each iteration faults and zeroes
// those pages again: on a 1000 x 1000 grid that was 80% of the GP's learning time. Keeping freed memory in the
// heap for the next allocation costs at most the largest set of temporaries alive at once (peak memory grew by
// 10-20% in the runs measured) and makes repeated products run at memory speed.
//
// The heap's pages are transparent huge pages where the kernel gives them only on request (THP mode `madvise`,
// Debian's default): glibc asks for them when its tunable glibc.malloc.hugetlb=1 is set, and tunables are read
// when a process starts, so the executable starts itself again with it. Loading a graph touches each byte of its
// arc arrays once: with 4 KiB pages that is one page fault per 4 KiB, about 9 us each on the virtual machine
// measured, and a load of random:1000000:10 took 2.1 s at np 1 where it takes 0.6-1.4 s with 2 MiB pages (1.8-2.0 s
// and 0.4-1.15 s at np 2).
#include <string_view>

namespace graphrf {

// Call once, first thing in main, before large allocations. The executable does; a library embedded in another
// program (the Python package) leaves the host program's allocator alone.
void reuse_freed_memory();

// Whether a process started with GLIBC_TUNABLES = `tunables` and LD_PRELOAD = `preload` (nullptr: unset) on a
// kernel whose /sys/kernel/mm/transparent_hugepage/enabled reads `thp_enabled` gains from starting again with huge
// pages in its heap: only in mode madvise (always gives them anyway, never refuses them), only if the user has not
// chosen glibc's tunables already (theirs are kept as they are), and not under valgrind (its preloaded allocator
// ignores the tunables, and an exec would leave valgrind).
bool heap_wants_huge_page_restart(const char* tunables, const char* preload, std::string_view thp_enabled);

// Starts the executable again (same process, same arguments, execv of the file /proc/self/exe names) with
// GLIBC_TUNABLES=glibc.malloc.hugetlb=1 when heap_wants_huge_page_restart says so; returns if it does not, or if
// the exec fails (the run then goes on with 4 KiB pages). Call first thing in main, before MPI starts. Not under
// AddressSanitizer, whose allocator ignores glibc's tunables.
void restart_with_huge_page_heap(char** argv);

}  // namespace graphrf
