#pragma once
// An allocator for big arrays that are read or written at random (walk arcs, deposits): blocks of 2 MiB
// and more are mapped on their own, 2 MiB-aligned and marked MADV_HUGEPAGE, so one TLB entry covers 512 times
// more memory and first-touch page faults drop by the same factor. They are mapped, not taken from the heap: the
// executable keeps freed memory in its heap (reuse_freed_memory.hpp), and heap pages already touched stay 4 KiB
// pages whatever the advice. (A walk table that came from the heap that way walked at half speed: every hop missed
// the TLB.) Small blocks use plain operator new.
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
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
    const std::size_t rounded = round_up(bytes);
    // Map one huge page more than needed and cut it down to an aligned run.
    void* mapped = ::mmap(nullptr, rounded + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) throw std::bad_alloc();
    const auto start = reinterpret_cast<std::uintptr_t>(mapped);
    const std::uintptr_t aligned = (start + kHugePage - 1) / kHugePage * kHugePage;
    if (aligned > start) ::munmap(mapped, aligned - start);
    const std::uintptr_t tail = start + kHugePage - aligned;  // what is mapped past aligned + rounded
    if (tail > 0) ::munmap(reinterpret_cast<void*>(aligned + rounded), tail);
    ::madvise(reinterpret_cast<void*>(aligned), rounded, MADV_HUGEPAGE);  // advice only: failure means small pages
    return reinterpret_cast<T*>(aligned);
  }
  void deallocate(T* p, std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kHugePage) ::operator delete(p);
    else ::munmap(p, round_up(bytes));
  }
  template <class U>
  bool operator==(const HugePageAllocator<U>&) const { return true; }

 private:
  static std::size_t round_up(std::size_t bytes) { return (bytes + kHugePage - 1) / kHugePage * kHugePage; }
};

template <class T>
using HugeVector = std::vector<T, HugePageAllocator<T>>;

}  // namespace graphrf
