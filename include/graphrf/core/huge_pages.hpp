#pragma once
// An allocator for big arrays that are read or written at random (walk arcs, deposits): blocks of 2 MiB
// and more are 2 MiB-aligned and marked MADV_HUGEPAGE, so one TLB entry covers 512 times more memory
// and first-touch page faults drop by the same factor. Small blocks use plain operator new.
#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <new>
#include <vector>

namespace graphrf {

template <class T>
struct HugePageAllocator {
  using value_type = T;
  static constexpr std::size_t kHugePage = std::size_t{1} << 21;

  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) {}

  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kHugePage) return static_cast<T*>(::operator new(bytes));
    const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    void* p = std::aligned_alloc(kHugePage, rounded);
    if (!p) throw std::bad_alloc();
    ::madvise(p, rounded, MADV_HUGEPAGE);  // advice only: failure just means small pages
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) {
    if (n * sizeof(T) < kHugePage) ::operator delete(p);
    else std::free(p);
  }
  template <class U>
  bool operator==(const HugePageAllocator<U>&) const { return true; }
};

template <class T>
using HugeVector = std::vector<T, HugePageAllocator<T>>;

// The same advice for an existing block, e.g. a vector's reserved but untouched storage that will be
// written front to back: the whole 2 MiB pages inside it are marked.
inline void advise_huge_pages(const void* p, std::size_t bytes) {
  constexpr std::size_t page = std::size_t{1} << 21;
  const auto begin = (reinterpret_cast<std::size_t>(p) + page - 1) / page * page;
  const auto end = (reinterpret_cast<std::size_t>(p) + bytes) / page * page;
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

template <class V>
void reserve_huge(V& v, std::size_t n) {
  v.reserve(n);
  advise_huge_pages(v.data(), v.capacity() * sizeof(typename V::value_type));
}

}  // namespace graphrf
