#pragma once
// Faults in the pages of a growing output array a batch at a time, ahead of the writer. An array reserved
// for the whole output is backed by the kernel page by page as it is first written, and each 4 KiB fault
// costs a trap besides the clearing of the page (on virtual machines more than the clearing): asking for
// the next 2 MiB at once (MADV_POPULATE_WRITE, Linux 5.14) makes one call of 512 faults. Memory is
// unchanged but for the batch ahead. Where the kernel lacks the call, pages are faulted on touch as before.
#include <cstddef>
#include <vector>

namespace graphrf {

class WriteAhead {
 public:
  // Called after elements were appended to `v`: if the write position came within a batch of the pages
  // already faulted in, faults in the next batch (within the capacity, which is never exceeded).
  template <class T, class A>
  void follow(const std::vector<T, A>& v) {
    const std::size_t used = v.size() * sizeof(T);
    if (v.data() == data_ && used + kBatchBytes / 2 < faulted_) return;  // most calls: far from the edge
    follow_bytes(v.data(), used, v.capacity() * sizeof(T));
  }

  static constexpr std::size_t kBatchBytes = std::size_t{1} << 21;

 private:
  void follow_bytes(const void* data, std::size_t used, std::size_t capacity);

  const void* data_ = nullptr;
  std::size_t faulted_ = 0;  // bytes from data_ known to be backed
  bool supported_ = true;
};

}  // namespace graphrf
