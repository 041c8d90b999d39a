#include "graphrf/mpi/shared_array.hpp"

#include <cerrno>
#include <exception>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "graphrf/mpi/run_summary.hpp"

namespace graphrf {

namespace {

#ifndef MADV_COLLAPSE
constexpr int MADV_COLLAPSE = 25;  // Linux 6.1; older C libraries do not name it
#endif

// Faults in a slice its owner is about to write, in 2 MiB pages where the kernel allows: one page fault per 2 MiB
// instead of 512, and one TLB entry for 2 MiB of the tables products read at random (attention's rows, the walk
// table). Shared memory gets 2 MiB pages on a fault only where the administrator enabled them (tmpfs huge=,
// transparent_hugepage/shmem_enabled, both off by default), but MADV_COLLAPSE (Linux 6.1) builds them whatever
// those settings say, unless they are `deny`: it moves the 4 KiB pages of a 2 MiB range into one huge page, so each
// range gets one small page first and the collapse fills in the rest (0.2 s per GiB, against 0.4 s for 4 KiB pages,
// on the machine of tests/bench/README.md). The other ranks of the host map the huge pages on their first read.
// Where the collapse fails (older kernels, no free huge page, no 2 MiB-aligned view), the slice faults in with
// MADV_POPULATE_WRITE in 4 KiB pages, with one call rather than one fault per page (a page fault on shared memory
// costs about twice one on private memory). Kernels before 5.14 know neither advice: pages then fault in as written.
// A 2 MiB range that straddles two slices belongs to the rank whose slice holds its start (the first slice also
// takes one that starts just before the array): left to nobody, the row offsets of the walk table, 4 MB a rank and
// read at random where a walker arrives from another host, stayed mostly in 4 KiB pages. The collapse keeps what
// the next rank may be writing meanwhile (the kernel unmaps and copies the small pages under their locks, as
// khugepaged does), but fails with EAGAIN on a range whose small pages the next rank is faulting in at that moment:
// the caller collapses again once every rank of the host has faulted its slice in.
//   slice, bytes: this rank's slice; huge_from: the lowest start of a range it takes; huge_end: where the view of
//   the array ends (no 2 MiB page can be mapped past it).
// Returns the ranges to collapse again (empty when none failed for that reason).
struct HugeRanges {
  std::uintptr_t begin = 0, end = 0;
  bool empty() const { return end <= begin; }
};
HugeRanges fault_in(std::byte* slice, std::int64_t bytes, std::uintptr_t huge_from, std::uintptr_t huge_end) {
  constexpr std::uintptr_t kPage = 4096, kHugePage = std::uintptr_t{1} << 21;
  const auto begin = reinterpret_cast<std::uintptr_t>(slice);
  const auto end = begin + static_cast<std::uintptr_t>(bytes);
  const std::uintptr_t first_range = (huge_from + kHugePage - 1) & ~(kHugePage - 1);
  const std::uintptr_t ranges_end = std::min((end + kHugePage - 1) & ~(kHugePage - 1), huge_end & ~(kHugePage - 1));
  HugeRanges busy;
  if (ranges_end > first_range) {
    // Where shmem_enabled is `advise` this alone makes the first touches below take huge pages.
    ::madvise(reinterpret_cast<void*>(first_range), ranges_end - first_range, MADV_HUGEPAGE);
    for (std::uintptr_t range = first_range; range < ranges_end; range += kHugePage)
      *reinterpret_cast<volatile std::byte*>(std::max(range, begin)) = std::byte{0};  // ours, not initialised yet
    if (::madvise(reinterpret_cast<void*>(first_range), ranges_end - first_range, MADV_COLLAPSE) != 0 && errno == EAGAIN)
      busy = {first_range, ranges_end};
  }
  const std::uintptr_t page_begin = begin & ~(kPage - 1), page_end = (end + kPage - 1) & ~(kPage - 1);
  ::madvise(reinterpret_cast<void*>(page_begin), page_end - page_begin, MADV_POPULATE_WRITE);
  return busy;
}

// A mapping's header line in /proc/self/maps and /proc/self/smaps: "begin-end permissions offset device inode path".
// Field lines of smaps ("Size:   4 kB", "AnonHugePages: 0 kB") are not headers.
struct MappingHeader {
  std::uintptr_t begin = 0, end = 0;
  std::uint64_t offset = 0;
};
std::optional<MappingHeader> parse_mapping_header(const std::string& line) {
  std::istringstream fields(line);
  unsigned long begin = 0, end = 0, offset = 0;
  char dash = 0;
  std::string permissions;
  if (!(fields >> std::hex >> begin >> dash >> end >> permissions >> offset) || dash != '-') return std::nullopt;
  return MappingHeader{begin, end, offset};
}

// The file offset at which the mapping holding `address` maps it, or -1.
std::int64_t file_offset_of(std::uintptr_t address) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    const std::optional<MappingHeader> mapping = parse_mapping_header(line);
    if (mapping && address >= mapping->begin && address < mapping->end)
      return static_cast<std::int64_t>(mapping->offset + (address - mapping->begin));
  }
  return -1;
}

std::atomic<std::int64_t> g_own_slice_bytes{0};
SharedWindowCounts g_counts;

// A freed host array kept for reuse.
struct KeptWindow {
  SharedMapping mapping;
  MPI_Group group = MPI_GROUP_NULL;  // the host's ranks: only an array of the same ranks may take it
};

// Oldest first. Making and freeing a window are collective over its host, so every rank of a host keeps its host's
// windows in the same order and, asked for the same sizes, takes the same one without asking the others.
std::vector<KeptWindow>& kept_windows() {
  static std::vector<KeptWindow> kept;
  return kept;
}

// This rank's view unmapped and its bytes uncharged; the window itself is left to MPI.
void unmap(SharedMapping& m) noexcept {
  note_own_peak_before_unmapping();  // while the peers' pages it maps still count in the resident size
  if (m.view) ::munmap(m.view, m.view_bytes);
  g_own_slice_bytes -= m.charged;
}

void free_window(KeptWindow& w) noexcept {  // collective over w's host
  unmap(w.mapping);
  MPI_Win_unlock_all(w.mapping.win);
  MPI_Win_free(&w.mapping.win);
  if (w.group != MPI_GROUP_NULL) MPI_Group_free(&w.group);
}

bool same_ranks(MPI_Group a, MPI_Group b) {
  int result = MPI_UNEQUAL;
  MPI_Group_compare(a, b, &result);
  return result == MPI_IDENT;
}

// MPI_Finalize deletes the attributes of MPI_COMM_SELF first, while every MPI call still works: the kept windows are
// freed then, in the order they were kept (the same on every rank of a host).
int free_kept_windows(MPI_Comm, int, void*, void*) {
  for (KeptWindow& w : kept_windows()) free_window(w);
  kept_windows().clear();
  return MPI_SUCCESS;
}

void keep(KeptWindow w) noexcept {
  static const bool freed_at_finalize = [] {
    int key = MPI_KEYVAL_INVALID;
    return MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_kept_windows, &key, nullptr) == MPI_SUCCESS &&
           MPI_Comm_set_attr(MPI_COMM_SELF, key, nullptr) == MPI_SUCCESS;
  }();
  if (!freed_at_finalize || MPI_Win_get_group(w.mapping.win, &w.group) != MPI_SUCCESS) {
    free_window(w);
    return;
  }
  std::vector<KeptWindow>& kept = kept_windows();
  kept.push_back(w);
  // Over the host's budget: its oldest go (each host's list and sizes are the same on all of its ranks).
  std::int64_t held = 0;
  for (const KeptWindow& k : kept) held += same_ranks(k.group, w.group) ? k.mapping.capacity : 0;
  for (auto it = kept.begin(); held > kKeptBytesPerHost && it != kept.end();) {
    if (!same_ranks(it->group, w.group)) {
      ++it;
      continue;
    }
    held -= it->mapping.capacity;
    free_window(*it);
    it = kept.erase(it);
  }
}

}  // namespace

std::int64_t own_shared_slice_bytes() { return g_own_slice_bytes.load(); }

SharedWindowCounts shared_window_counts() { return g_counts; }

void free_kept_shared_arrays() { free_kept_windows(MPI_COMM_SELF, MPI_KEYVAL_INVALID, nullptr, nullptr); }

// MPI maps the window's segment wherever mmap puts it, and a 2 MiB page can back a range of shared memory only
// where its address and its offset in the segment's file agree modulo 2 MiB. So each rank maps the array a second
// time at an address that agrees (mremap with old size 0 maps the same pages again), and reads and writes through
// that view; MPI keeps its own mapping for its own use. Returns false, and maps nothing, where that fails.
bool SharedWindow::map_aligned_view() {
  constexpr std::uintptr_t kPage = 4096, kHugePage = std::uintptr_t{1} << 21;
  const auto begin = reinterpret_cast<std::uintptr_t>(mapping_.base) & ~(kPage - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(mapping_.base) + static_cast<std::uintptr_t>(offsets_.back()) + kPage - 1) & ~(kPage - 1);
  if (end - begin < kHugePage) return false;  // no 2 MiB page to gain: spare small windows the read of /proc/self/maps
  const std::int64_t offset = file_offset_of(begin);
  if (offset < 0) return false;
  const std::size_t bytes = end - begin;
  void* reserved = ::mmap(nullptr, bytes + kHugePage, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (reserved == MAP_FAILED) return false;
  const auto start = reinterpret_cast<std::uintptr_t>(reserved);
  const std::uintptr_t target = start + ((static_cast<std::uintptr_t>(offset) - start) & (kHugePage - 1));
  void* view = ::mremap(reinterpret_cast<void*>(begin), 0, bytes, MREMAP_MAYMOVE | MREMAP_FIXED, reinterpret_cast<void*>(target));
  // What is left of the reservation on either side (all of it when mremap failed).
  if (view == MAP_FAILED) {
    ::munmap(reserved, bytes + kHugePage);
    return false;
  }
  if (target > start) ::munmap(reserved, target - start);
  ::munmap(reinterpret_cast<void*>(target + bytes), start + kHugePage - target);  // never empty: target < start + 2 MiB
  mapping_.view = static_cast<std::byte*>(view);
  mapping_.view_bytes = bytes;
  mapping_.base = mapping_.view + (reinterpret_cast<std::uintptr_t>(mapping_.base) - begin);
  return true;
}

// Takes the smallest kept window of the host's ranks that holds the array (the oldest of equal ones), clears this
// rank's slice and waits for the others to clear theirs. The same choice on every rank: see kept_windows().
bool SharedWindow::reuse_freed(const Communicator& host) {
  const std::int64_t total = offsets_.back();
  std::vector<KeptWindow>& kept = kept_windows();
  if (total == 0 || total > kKeptArrayMaxBytes || kept.empty()) return false;
  MPI_Group group = MPI_GROUP_NULL;
  check_mpi(MPI_Comm_group(host.get(), &group), "MPI_Comm_group");
  auto best = kept.end();
  for (auto it = kept.begin(); it != kept.end(); ++it)
    if (it->mapping.capacity >= total && (best == kept.end() || it->mapping.capacity < best->mapping.capacity) &&
        same_ranks(it->group, group))
      best = it;
  MPI_Group_free(&group);
  if (best == kept.end()) return false;
  mapping_ = best->mapping;
  MPI_Group_free(&best->group);
  kept.erase(best);
  std::memset(mine(), 0, static_cast<size_t>(offsets_[static_cast<size_t>(rank_) + 1] - offsets_[static_cast<size_t>(rank_)]));
  synchronize();
  ++g_counts.reused;
  return true;
}

SharedWindow::SharedWindow(const Communicator& host, std::int64_t bytes) : host_(&host), rank_(host.rank()) {
  offsets_ = std::vector<std::int64_t>(static_cast<size_t>(host.size()) + 1, 0);
  const std::vector<std::int64_t> sizes = host.allgather(bytes);
  for (int r = 0; r < host.size(); ++r) offsets_[static_cast<size_t>(r) + 1] = offsets_[static_cast<size_t>(r)] + sizes[static_cast<size_t>(r)];
  if (reuse_freed(host)) return;
  // MPI puts the slices after a header of its own, at any byte offset (8 to 48 bytes past a line with Open MPI
  // 4.1), so the host's first rank asks for a cache line more and the array starts on the next line boundary.
  // Unaligned, every other 32-byte arc of a walk table straddled two lines: a hop's prefetch fetched one, the hop
  // missed on the other (walks on the shared table ran at half the speed of walks on an aligned private copy).
  constexpr std::int64_t kLineBytes = 64;
  const std::int64_t asked = bytes + (rank_ == 0 && offsets_.back() > 0 ? kLineBytes : 0);
  void* mine = nullptr;
  const int code = MPI_Win_allocate_shared(static_cast<MPI_Aint>(asked), 1, MPI_INFO_NULL, host.get(), &mine, &mapping_.win);
  if (host.max(code == MPI_SUCCESS ? 0 : 1) != 0) {
    if (code == MPI_SUCCESS) MPI_Win_free(&mapping_.win);
    mapping_.win = MPI_WIN_NULL;
    throw InputError("cannot allocate " + std::to_string(offsets_.back() >> 20) +
                " MB of shared memory for this host (is /dev/shm large enough? containers often limit it to 64 MB;"
                " --host-size 1 avoids shared memory)", true);
  }
  if (offsets_.back() > 0) {
    // Slices are contiguous (the default): the array starts at the first line boundary of the first rank's slice.
    MPI_Aint size = 0;
    int unit = 0;
    void* first = nullptr;
    check_mpi(MPI_Win_shared_query(mapping_.win, 0, &size, &unit, &first), "MPI_Win_shared_query");
    const auto line = static_cast<std::uintptr_t>(kLineBytes);
    mapping_.base = reinterpret_cast<std::byte*>((reinterpret_cast<std::uintptr_t>(first) + line - 1) & ~(line - 1));
    map_aligned_view();
  }
  HugeRanges busy;
  if (bytes > 0) {
    const auto array_begin = reinterpret_cast<std::uintptr_t>(mapping_.base);
    const auto array_end = array_begin + static_cast<std::uintptr_t>(offsets_.back());
    const std::uintptr_t view_begin = mapping_.view ? reinterpret_cast<std::uintptr_t>(mapping_.view) : array_begin;
    const std::uintptr_t view_end = mapping_.view ? view_begin + mapping_.view_bytes : array_end;
    const bool first_slice = offsets_[static_cast<size_t>(rank_)] == 0;
    busy = fault_in(this->mine(), bytes, first_slice ? view_begin : reinterpret_cast<std::uintptr_t>(this->mine()), view_end);
  }
  // Once every rank has faulted its slice in (the reduction waits for all), no small page is arriving any more:
  // ranges that were busy collapse now (ranges already in 2 MiB pages return at once).
  if (host.max(busy.empty() ? 0 : 1) != 0 && !busy.empty())
    ::madvise(reinterpret_cast<void*>(busy.begin), busy.end - busy.begin, MADV_COLLAPSE);
  // Passive target for the window's whole life: synchronize() is MPI_Win_sync and a host barrier.
  check_mpi(MPI_Win_lock_all(MPI_MODE_NOCHECK, mapping_.win), "MPI_Win_lock_all");
  mapping_.capacity = offsets_.back();
  mapping_.charged = bytes;
  g_own_slice_bytes += bytes;
  ++g_counts.made;
}

SharedWindow::SharedWindow(SharedWindow&& other) noexcept
    : host_(other.host_), mapping_(std::exchange(other.mapping_, {})), rank_(other.rank_), offsets_(std::move(other.offsets_)) {}

SharedWindow& SharedWindow::operator=(SharedWindow&& other) noexcept {
  if (this == &other) return *this;
  release();
  host_ = other.host_;
  mapping_ = std::exchange(other.mapping_, {});
  rank_ = other.rank_;
  offsets_ = std::move(other.offsets_);
  return *this;
}

SharedWindow::~SharedWindow() { release(); }

void SharedWindow::release() noexcept {
  if (mapping_.win == MPI_WIN_NULL) return;
  KeptWindow w{std::exchange(mapping_, {}), MPI_GROUP_NULL};
  // Freeing is collective: a rank unwinding from an error of its own would wait here for ranks that never come
  // (the main guard aborts the run instead). The window is left to the end of the process.
  // After MPI_Finalize (an object a Python interpreter frees at exit) no MPI call is allowed, nor needed.
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (std::uncaught_exceptions() > 0 || finalized) {
    unmap(w.mapping);
    return;
  }
  // Same capacity on every rank of the host: all keep it, or all free it.
  if (w.mapping.capacity > 0 && w.mapping.capacity <= kKeptArrayMaxBytes)
    keep(w);
  else
    free_window(w);
}

bool SharedWindow::huge_pages() const {
  if (!mapping_.base) return false;
  // The array may span several mappings: advice on part of one splits it.
  const auto first = reinterpret_cast<std::uintptr_t>(mapping_.base);
  const auto last = first + static_cast<std::uintptr_t>(offsets_.back());
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    if (const std::optional<MappingHeader> mapping = parse_mapping_header(line)) {
      inside = mapping->begin < last && mapping->end > first;
      continue;
    }
    if (!inside) continue;
    std::istringstream field(line);
    std::string key;
    long kb = 0;
    if (field >> key >> kb && (key == "ShmemPmdMapped:" || key == "FilePmdMapped:" || key == "AnonHugePages:") && kb > 0) return true;
  }
  return false;
}

void SharedWindow::synchronize() const {
  if (mapping_.win == MPI_WIN_NULL) return;
  check_mpi(MPI_Win_sync(mapping_.win), "MPI_Win_sync");
  host_->barrier();
  check_mpi(MPI_Win_sync(mapping_.win), "MPI_Win_sync");
}

}  // namespace graphrf
