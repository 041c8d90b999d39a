#include "graphrf/mpi/shared_array.hpp"

#include <exception>
#include <sys/mman.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>

namespace graphrf {

SharedWindow::SharedWindow(const Communicator& host, std::int64_t bytes) : host_(&host), rank_(host.rank()) {
  offsets_ = std::vector<std::int64_t>(static_cast<size_t>(host.size()) + 1, 0);
  const std::vector<std::int64_t> sizes = host.allgather(bytes);
  for (int r = 0; r < host.size(); ++r) offsets_[static_cast<size_t>(r) + 1] = offsets_[static_cast<size_t>(r)] + sizes[static_cast<size_t>(r)];
  void* mine = nullptr;
  const int code = MPI_Win_allocate_shared(static_cast<MPI_Aint>(bytes), 1, MPI_INFO_NULL, host.get(), &mine, &win_);
  if (host.max(code == MPI_SUCCESS ? 0 : 1) != 0) {
    if (code == MPI_SUCCESS) MPI_Win_free(&win_);
    win_ = MPI_WIN_NULL;
    throw InputError("cannot allocate " + std::to_string(offsets_.back() >> 20) +
                " MB of shared memory for this host (is /dev/shm large enough? containers often limit it to 64 MB;"
                " --host-size 1 avoids shared memory)", true);
  }
  if (offsets_.back() > 0) {
    // Slices are contiguous (the default): the array starts at the first rank's slice that is not empty.
    MPI_Aint size = 0;
    int unit = 0;
    void* first = nullptr;
    check_mpi(MPI_Win_shared_query(win_, MPI_PROC_NULL, &size, &unit, &first), "MPI_Win_shared_query");
    base_ = static_cast<std::byte*>(first);
    // Tables read at random (the walk table) want 2 MiB pages, as private arrays get them (huge_pages.hpp). For
    // shared memory the kernel grants them only when /sys/kernel/mm/transparent_hugepage/shmem_enabled allows
    // (advise, within_size or always); otherwise this advice is ignored and every hop may miss the TLB.
    constexpr std::uintptr_t kHugePage = std::uintptr_t{1} << 21;
    const auto begin = (reinterpret_cast<std::uintptr_t>(base_) + kHugePage - 1) & ~(kHugePage - 1);
    const auto end = (reinterpret_cast<std::uintptr_t>(base_) + static_cast<std::uintptr_t>(offsets_.back())) & ~(kHugePage - 1);
    if (host.rank() == 0 && end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
  }
  if (bytes > 0) {
    // Every slice is written by its owner first: fault its pages in with one call (a page fault on shared memory
    // costs about twice one on private memory, and the owner would take one per 4 KiB page). Kernels before 5.14
    // do not know the advice; their pages then fault in as they are written.
    constexpr std::uintptr_t kPage = 4096;
    const auto begin = reinterpret_cast<std::uintptr_t>(mine) & ~(kPage - 1);
    const auto end = (reinterpret_cast<std::uintptr_t>(mine) + static_cast<std::uintptr_t>(bytes) + kPage - 1) & ~(kPage - 1);
    ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE);
  }
  // Passive target for the window's whole life: synchronize() is MPI_Win_sync and a host barrier.
  check_mpi(MPI_Win_lock_all(MPI_MODE_NOCHECK, win_), "MPI_Win_lock_all");
}

SharedWindow::SharedWindow(SharedWindow&& other) noexcept
    : host_(other.host_), win_(std::exchange(other.win_, MPI_WIN_NULL)), base_(std::exchange(other.base_, nullptr)),
      rank_(other.rank_), offsets_(std::move(other.offsets_)) {}

SharedWindow& SharedWindow::operator=(SharedWindow&& other) noexcept {
  if (this == &other) return *this;
  release();
  host_ = other.host_;
  win_ = std::exchange(other.win_, MPI_WIN_NULL);
  base_ = std::exchange(other.base_, nullptr);
  rank_ = other.rank_;
  offsets_ = std::move(other.offsets_);
  return *this;
}

SharedWindow::~SharedWindow() { release(); }

void SharedWindow::release() noexcept {
  if (win_ == MPI_WIN_NULL) return;
  // Freeing is collective: a rank unwinding from an error of its own would wait here for ranks that never come
  // (the main guard aborts the run instead). The window is left to the end of the process.
  // After MPI_Finalize (an object a Python interpreter frees at exit) no MPI call is allowed, nor needed.
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (std::uncaught_exceptions() > 0 || finalized) {
    win_ = MPI_WIN_NULL;
    base_ = nullptr;
    return;
  }
  MPI_Win_unlock_all(win_);
  MPI_Win_free(&win_);
  win_ = MPI_WIN_NULL;
  base_ = nullptr;
}

bool SharedWindow::huge_pages() const {
  if (!base_) return false;
  const auto address = reinterpret_cast<std::uintptr_t>(base_);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    unsigned long begin = 0, end = 0;
    char dash = 0;
    std::istringstream header(line);
    if (line.find(':') == std::string::npos || line.find('-') < line.find(' ')) {
      if (header >> std::hex >> begin >> dash >> end && dash == '-') {
        inside = address >= begin && address < end;
        continue;
      }
    }
    if (!inside) continue;
    std::istringstream field(line);
    std::string key;
    long kb = 0;
    if (field >> key >> kb && (key == "ShmemPmdMapped:" || key == "FilePmdMapped:") && kb > 0) return true;
  }
  return false;
}

void SharedWindow::synchronize() const {
  if (win_ == MPI_WIN_NULL) return;
  check_mpi(MPI_Win_sync(win_), "MPI_Win_sync");
  host_->barrier();
  check_mpi(MPI_Win_sync(win_), "MPI_Win_sync");
}

}  // namespace graphrf
