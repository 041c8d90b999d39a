// heap_wants_huge_page_restart: when the executable starts itself again with glibc.malloc.hugetlb=1 (see
// reuse_freed_memory.hpp). tests/e2e/test_huge_page_heap.py watches real ranks do it.
#include <gtest/gtest.h>

#include "graphrf/core/reuse_freed_memory.hpp"

namespace graphrf {
namespace {

TEST(HugePageHeap, RestartsOnlyInModeMadviseWithoutTheUsersTunables) {
  // The three modes as the kernel prints them: the chosen one in brackets.
  EXPECT_TRUE(heap_wants_huge_page_restart(nullptr, "always [madvise] never\n"));
  EXPECT_FALSE(heap_wants_huge_page_restart(nullptr, "[always] madvise never\n"));  // heap pages are huge anyway
  EXPECT_FALSE(heap_wants_huge_page_restart(nullptr, "always madvise [never]\n"));  // advice would be ignored
  EXPECT_FALSE(heap_wants_huge_page_restart(nullptr, ""));                          // no THP in this kernel
  // The user's tunables, whatever they say (even empty), are kept: no restart, which would replace them.
  EXPECT_FALSE(heap_wants_huge_page_restart("glibc.malloc.check=0", "always [madvise] never\n"));
  EXPECT_FALSE(heap_wants_huge_page_restart("", "always [madvise] never\n"));
  // The restarted process has the setting: it does not start again.
  EXPECT_FALSE(heap_wants_huge_page_restart("glibc.malloc.hugetlb=1", "always [madvise] never\n"));
}

}  // namespace
}  // namespace graphrf
