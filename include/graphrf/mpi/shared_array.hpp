#pragma once
// One array per host in shared memory (an MPI-3 shared window): every rank of the host contributes a slice, the
// slices lie one after another in host rank order, and every rank reads (and may write) the whole array through
// plain pointers. Writes become visible to the other ranks at synchronize(), which every rank of the host calls
// together. Allocating and freeing are collective over the host, so a SharedArray lives in code that every rank
// of the host runs in step (errors are agreed before it is destroyed).
#include <cstdint>
#include <type_traits>
#include <vector>

#include "graphrf/mpi/communicator.hpp"

namespace graphrf {

// What MPI made for one host array and this rank's view of it: a window holds one, and a freed window kept for
// reuse (shared_array.cpp) holds it until the next array takes it whole.
struct SharedMapping {
  MPI_Win win = MPI_WIN_NULL;
  std::byte* base = nullptr;  // start of the host's array, in view when there is one
  std::byte* view = nullptr;  // this rank's own mapping of the array, 2 MiB-aligned as in the segment's file
  std::size_t view_bytes = 0;
  std::int64_t capacity = 0;  // bytes from base the window holds (more than the array's once reused)
  std::int64_t charged = 0;   // this rank's bytes in own_shared_slice_bytes(): its slice when the window was made
};

class SharedWindow {
 public:
  SharedWindow() = default;
  // Collective over host: this rank's slice has `bytes` bytes, zero. Throws Error naming /dev/shm when the
  // allocation fails (containers often limit it). Small arrays reuse the memory of a freed one of the same host
  // (see kKeptArrayMaxBytes): a host collective of MPI costs about 0.1-3 ms a window, and passes on small graphs
  // make a dozen.
  SharedWindow(const Communicator& host, std::int64_t bytes);
  SharedWindow(SharedWindow&& other) noexcept;
  SharedWindow& operator=(SharedWindow&& other) noexcept;
  SharedWindow(const SharedWindow&) = delete;
  SharedWindow& operator=(const SharedWindow&) = delete;
  ~SharedWindow();

  // Start of the host's array (nullptr when every slice is empty) and of this rank's slice.
  std::byte* base() const { return mapping_.base; }
  std::byte* mine() const { return mapping_.base ? mapping_.base + offsets_[static_cast<size_t>(rank_)] : nullptr; }
  // Byte offset of host rank r's slice; offset(size) is the total.
  std::int64_t offset(int host_rank) const { return offsets_[static_cast<size_t>(host_rank)]; }
  // Collective over the host: every write made before it by any rank is visible to every rank after it.
  void synchronize() const;
  // Whether the kernel backs this rank's view of the array with 2 MiB pages (/proc/self/smaps): each rank asks for
  // them for its slice (shared_array.cpp), and Linux before 6.1 grants them only where the administrator enabled
  // them for shared memory (tmpfs huge=, transparent_hugepage/shmem_enabled). Call it after the pages were touched.
  bool huge_pages() const;

 private:
  bool map_aligned_view();
  bool reuse_freed(const Communicator& host);
  void release() noexcept;

  const Communicator* host_ = nullptr;
  SharedMapping mapping_;
  int rank_ = 0;
  std::vector<std::int64_t> offsets_{0};
};

// Host arrays of at most this many bytes in all are kept when freed, up to kKeptBytesPerHost per host, and reused
// by the next array of the same host that fits; all are freed at MPI_Finalize.
inline constexpr std::int64_t kKeptArrayMaxBytes = std::int64_t{16} << 20;
inline constexpr std::int64_t kKeptBytesPerHost = std::int64_t{64} << 20;

// How many shared arrays reused a freed one's memory, and how many were made, since the process started.
struct SharedWindowCounts {
  std::int64_t made = 0, reused = 0;
};
SharedWindowCounts shared_window_counts();

// Frees the kept arrays now rather than at MPI_Finalize. Collective over every rank that made shared arrays with
// this one (in practice MPI_COMM_WORLD).
void free_kept_shared_arrays();

// Bytes of this process's own slices in the shared windows alive now or kept for reuse: what it contributes to its
// hosts' arrays (the rest of a host array that it maps, it reads in place from its peers' slices).
std::int64_t own_shared_slice_bytes();

template <class T>
class SharedArray {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  SharedArray() = default;
  // Collective over host: this rank's slice holds `count` elements, zero.
  SharedArray(const Communicator& host, std::int64_t count)
      : window_(host, count * static_cast<std::int64_t>(sizeof(T))) {}

  T* data() const { return reinterpret_cast<T*>(window_.base()); }
  T* mine() const { return reinterpret_cast<T*>(window_.mine()); }
  // Index of host rank r's first element; first(size) is the host's total.
  std::int64_t first(int host_rank) const { return window_.offset(host_rank) / static_cast<std::int64_t>(sizeof(T)); }
  T& operator[](std::int64_t i) const { return data()[i]; }
  void synchronize() const { window_.synchronize(); }
  bool huge_pages() const { return window_.huge_pages(); }

 private:
  SharedWindow window_;
};

}  // namespace graphrf
