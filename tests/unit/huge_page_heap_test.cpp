// heap_wants_huge_page_restart: when the executable starts itself again with glibc.malloc.hugetlb=1 (see
// reuse_freed_memory.hpp). tests/e2e/test_huge_page_heap.py watches real ranks do it.
#include <gtest/gtest.h>

#include "graphrf/core/reuse_freed_memory.hpp"

namespace graphrf {
namespace {

TEST(HugePageHeap, RestartsOnlyInModeMadviseWithoutTheUsersTunables) {
  // The three modes as the kernel prints them: the chosen one in brackets.
  EXPECT_TRUE(heap_wants_huge_page_restart(nullptr, nullptr, "always [madvise] never\n"));
  EXPECT_FALSE(heap_wants_huge_page_restart(nullptr, nullptr, "[always] madvise never\n"));  // huge pages anyway
  EXPECT_FALSE(heap_wants_huge_page_restart(nullptr, nullptr, "always madvise [never]\n"));  // advice ignored
  EXPECT_FALSE(heap_wants_huge_page_restart(nullptr, nullptr, ""));                          // no THP here
  // The user's tunables, whatever they say (even empty), are kept: no restart, which would replace them.
  EXPECT_FALSE(heap_wants_huge_page_restart("glibc.malloc.check=0", nullptr, "always [madvise] never\n"));
  EXPECT_FALSE(heap_wants_huge_page_restart("", nullptr, "always [madvise] never\n"));
  // The restarted process has the setting: it does not start again.
  EXPECT_FALSE(heap_wants_huge_page_restart("glibc.malloc.hugetlb=1", nullptr, "always [madvise] never\n"));
  // Under valgrind (its preloaded core): its allocator ignores the tunables, and an exec would leave valgrind.
  const char* valgrind =
      "/usr/libexec/valgrind/vgpreload_core-amd64-linux.so:/usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so";
  EXPECT_FALSE(heap_wants_huge_page_restart(nullptr, valgrind, "always [madvise] never\n"));
  // Another preloaded library changes nothing.
  EXPECT_TRUE(heap_wants_huge_page_restart(nullptr, "/usr/lib/libfoo.so", "always [madvise] never\n"));
}

}  // namespace
}  // namespace graphrf
