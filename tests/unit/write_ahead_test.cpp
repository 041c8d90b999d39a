// WriteAhead against the kernel's own account of which pages are backed (mincore): after the writer follows an
// array, the pages from its end to a batch ahead are backed and the pages beyond are not; a reallocated array
// is followed from its new address. Skipped where the kernel lacks MADV_POPULATE_WRITE (before Linux 5.14), as
// a mapping of the test's own shows.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <vector>

#include "graphrf/core/write_ahead.hpp"

namespace graphrf {
namespace {

const std::size_t kPage = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));

// Whether each page of [from, to) bytes of `data` is resident.
std::vector<bool> resident(const void* data, std::size_t from, std::size_t to) {
  const auto base = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t first = (base + from) / kPage * kPage, last = (base + to + kPage - 1) / kPage * kPage;
  std::vector<unsigned char> v((last - first) / kPage);
  EXPECT_EQ(::mincore(reinterpret_cast<void*>(first), last - first, v.data()), 0);
  std::vector<bool> out;
  for (const unsigned char c : v) out.push_back((c & 1) != 0);
  return out;
}

// Whether this kernel faults pages in on request (MADV_POPULATE_WRITE, Linux 5.14), asked of a mapping of its own.
bool kernel_populates() {
  void* p = ::mmap(nullptr, 2 * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return false;
  const bool ok = ::madvise(p, 2 * kPage, 23 /* MADV_POPULATE_WRITE */) == 0;
  ::munmap(p, 2 * kPage);
  return ok;
}

bool all(const std::vector<bool>& v) {
  for (const bool b : v)
    if (!b) return false;
  return true;
}
bool none(const std::vector<bool>& v) {
  for (const bool b : v)
    if (b) return false;
  return true;
}

TEST(WriteAhead, BacksTheNextBatchAndNothingBeyond) {
  if (!kernel_populates()) GTEST_SKIP() << "this kernel has no MADV_POPULATE_WRITE: pages are faulted on touch";
  constexpr std::size_t kBatch = WriteAhead::kBatchBytes;
  std::vector<double> v;
  v.reserve(16 * kBatch / sizeof(double));  // 32 MiB of address space: a fresh mapping, no page backed yet
  ASSERT_TRUE(none(resident(v.data(), 2 * kPage, 16 * kBatch)));  // (a debugging allocator may fill the first page)
  WriteAhead ahead;
  v.resize(1000);
  ahead.follow(v);
  const std::size_t used = v.size() * sizeof(double);
  // Beyond: past the batch and the huge page it may share (where transparent huge pages are always on).
  EXPECT_TRUE(all(resident(v.data(), 0, used + kBatch - kPage)));
  EXPECT_TRUE(none(resident(v.data(), used + 3 * kBatch, 16 * kBatch)));
  // The writer moves to within half a batch of the edge: the next batch is backed, and no more.
  v.resize((kBatch - kPage) / sizeof(double));
  ahead.follow(v);
  const std::size_t edge = v.size() * sizeof(double) + kBatch;
  EXPECT_TRUE(all(resident(v.data(), 0, edge - kPage)));
  EXPECT_TRUE(none(resident(v.data(), edge + 2 * kBatch, 16 * kBatch)));
}

TEST(WriteAhead, FollowsAReallocatedArrayFromItsNewAddress) {
  if (!kernel_populates()) GTEST_SKIP() << "this kernel has no MADV_POPULATE_WRITE: pages are faulted on touch";
  constexpr std::size_t kBatch = WriteAhead::kBatchBytes;
  std::vector<double> v(1000);
  WriteAhead ahead;
  ahead.follow(v);
  std::vector<double> larger;
  larger.reserve(8 * kBatch / sizeof(double));
  larger = v;  // same contents, new block: as a vector that grew past its capacity
  ahead.follow(larger);
  const std::size_t used = larger.size() * sizeof(double);
  EXPECT_TRUE(all(resident(larger.data(), 0, used + kBatch - kPage)));
}

}  // namespace
}  // namespace graphrf
