// Hosts are runs of consecutive ranks that share memory: with host size K every host but the last of a machine
// has K ranks, host size 1 gives every rank its own host, and a shared array written by each rank of a host is
// read whole by every other rank of that host after synchronize().
#include "graphrf/mpi/host_topology.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <vector>

#include "graphrf/mpi/run_summary.hpp"
#include "graphrf/mpi/shared_array.hpp"
#include "mpi_test_support.hpp"

using namespace graphrf;
using graphrf::testing::world;

namespace {

#ifndef MADV_COLLAPSE
constexpr int MADV_COLLAPSE = 25;
#endif

// Whether this kernel turns shared memory (a file in /dev/shm, where MPI keeps its shared segments) into 2 MiB pages
// on request: map 4 MiB of such a file 2 MiB-aligned, touch it, ask for MADV_COLLAPSE (Linux 6.1 and later,
// unless the administrator set shmem_enabled to deny).
bool kernel_collapses_shared_memory() {
  constexpr std::size_t kHuge = std::size_t{1} << 21;
  const std::string name = "/graphrf-collapse-probe-" + std::to_string(::getpid());
  const int fd = ::shm_open(name.c_str(), O_CREAT | O_RDWR | O_EXCL, 0600);
  if (fd < 0) return false;
  ::shm_unlink(name.c_str());
  bool collapsed = false;
  void* reserved = ::mmap(nullptr, 3 * kHuge, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (::ftruncate(fd, 2 * kHuge) == 0 && reserved != MAP_FAILED) {
    const auto aligned = (reinterpret_cast<std::uintptr_t>(reserved) + kHuge - 1) & ~(kHuge - 1);
    void* p = ::mmap(reinterpret_cast<void*>(aligned), 2 * kHuge, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
    if (p != MAP_FAILED) {
      static_cast<volatile char*>(p)[0] = 1;
      static_cast<volatile char*>(p)[kHuge] = 1;
      collapsed = ::madvise(p, 2 * kHuge, MADV_COLLAPSE) == 0;
    }
  }
  if (reserved != MAP_FAILED) ::munmap(reserved, 3 * kHuge);
  ::close(fd);
  return collapsed;
}

// The hosts of `size` consecutive ranks on one machine (every test rank runs on this one machine).
void expect_hosts_of(const HostTopology& hosts, int size) {
  const Communicator& comm = world();
  const int p = comm.size();
  const int expected_count = (p + size - 1) / size;
  ASSERT_EQ(hosts.count(), expected_count);
  for (int r = 0; r < p; ++r) EXPECT_EQ(hosts.host_of(r), r / size) << "rank " << r;
  for (int h = 0; h < hosts.count(); ++h) {
    EXPECT_EQ(hosts.first_rank(h), h * size);
    EXPECT_EQ(hosts.end_rank(h), std::min(p, (h + 1) * size));
  }
  EXPECT_EQ(hosts.index(), comm.rank() / size);
  EXPECT_EQ(hosts.size(), std::min(p, (hosts.index() + 1) * size) - hosts.index() * size);
  EXPECT_EQ(hosts.host().rank(), comm.rank() - hosts.index() * size);
  EXPECT_EQ(hosts.sharing(), std::min(size, p) > 1);
  EXPECT_TRUE(hosts.note().empty()) << hosts.note();
}

}  // namespace

TEST(HostTopology, HostsAreRunsOfConsecutiveRanksOfTheChosenSize) {
  for (int size : {1, 2, 3}) {
    SCOPED_TRACE("host size " + std::to_string(size));
    expect_hosts_of(HostTopology(world(), size), size);
  }
}

TEST(HostTopology, ByDefaultTheWholeMachineIsOneHost) {
  const HostTopology hosts(world(), 0);
  expect_hosts_of(hosts, world().size());
  EXPECT_EQ(hosts.summary(), "1 host of " + std::to_string(world().size()) + (world().size() == 1 ? " rank" : " ranks"));
}

TEST(HostTopology, MixedHostSizesAreSummarised) {
  if (world().size() != 3) GTEST_SKIP() << "needs 3 ranks";
  EXPECT_EQ(HostTopology(world(), 2).summary(), "hosts of 2, 1 ranks");
}

TEST(SharedArray, EveryRankOfAHostReadsWhatEachWroteAfterSynchronize) {
  for (int size : {1, 2, 0}) {
    const HostTopology hosts(world(), size);
    const Communicator& host = hosts.host();
    // Host rank r writes r + 1 values (rank 0 of a 2-rank host: 1 value), each encoding (world rank, position).
    const std::int64_t mine = host.rank() + 1;
    SharedArray<std::int64_t> array(host, mine);
    for (std::int64_t i = 0; i < mine; ++i) array.mine()[i] = 1000 * world().rank() + i;
    array.synchronize();
    const int first_world_rank = hosts.first_rank(hosts.index());
    std::int64_t at = 0;
    for (int r = 0; r < host.size(); ++r) {
      EXPECT_EQ(array.first(r), at);
      for (std::int64_t i = 0; i <= r; ++i, ++at) EXPECT_EQ(array[at], 1000 * (first_world_rank + r) + i);
    }
    EXPECT_EQ(array.first(host.size()), at);
    array.synchronize();  // nobody frees the window while another rank still reads it
  }
}

// Host rank r writes count(r) values, (r << 40) + i, into its slice; every rank reads every slice back, and where
// this kernel can collapse shared memory (probed independently) finds the array in 2 MiB pages.
template <class Count>
void expect_slices_read_back_in_huge_pages(const Communicator& host, Count count) {
  SharedArray<std::int64_t> array(host, count(host.rank()));
  for (std::int64_t i = 0; i < count(host.rank()); ++i) array.mine()[i] = (std::int64_t{host.rank()} << 40) + i;
  array.synchronize();
  for (int r = 0; r < host.size(); ++r) {
    ASSERT_EQ(array.first(r + 1) - array.first(r), count(r));
    std::int64_t wrong = 0;
    for (std::int64_t i = 0; i < count(r); ++i) wrong += array[array.first(r) + i] != (std::int64_t{r} << 40) + i;
    EXPECT_EQ(wrong, 0) << "host rank " << r << "'s slice, read on host rank " << host.rank();
  }
  if (kernel_collapses_shared_memory()) EXPECT_TRUE(array.huge_pages()) << "host rank " << host.rank();
  array.synchronize();
}

// Big slices are mapped a second time, 2 MiB-aligned as in MPI's segment, and faulted in as 2 MiB pages where the
// kernel can (shared_array.cpp): every byte still lands where every other rank reads it.
TEST(SharedArray, BigSlicesAreReadWholeAndInHugePagesWhereTheKernelAllows) {
  const HostTopology hosts(world(), 0);
  // 6 MiB and an odd number of elements more per rank: slices start at no particular alignment.
  expect_slices_read_back_in_huge_pages(hosts.host(), [](int r) { return std::int64_t{6} * (1 << 20) / 8 + 13 * r + 1; });
}

// A 2 MiB range that straddles two slices is collapsed too, by the rank whose slice holds its start, while the next
// rank may be writing its part: slices just under 2 MiB hold no whole range of their own, yet three of them span one
// at least.
TEST(SharedArray, RangesAcrossSlicesAreInHugePagesToo) {
  const HostTopology hosts(world(), 0);
  if (hosts.host().size() < 3) GTEST_SKIP() << "needs a host of 3 ranks or more";
  expect_slices_read_back_in_huge_pages(hosts.host(), [](int r) { return (std::int64_t{2} * (1 << 20) - 65536) / 8 + 13 * r + 1; });
}

// MPI puts the slices after a header of its own; the array starts on a cache line whatever that header's size and
// whichever slices are empty, so that no 32-byte walk-table arc straddles two lines (shared_array.cpp).
TEST(SharedArray, TheArrayStartsOnACacheLine) {
  for (int size : {1, 2, 0}) {
    const HostTopology hosts(world(), size);
    const Communicator& host = hosts.host();
    for (std::int64_t first_count : {0, 1, 3}) {
      SharedArray<double> array(host, host.rank() == 0 ? first_count : 5);
      if (array.data()) EXPECT_EQ(reinterpret_cast<std::uintptr_t>(array.data()) % 64, 0u) << "host size " << size;
      array.synchronize();
    }
  }
}

// A rank that reads its peers' slices maps their pages: its resident size counts them, its own peak does not (they
// are its peers'), so a host's peaks add up to its memory. 32 MiB slices, read whole by every rank; MPI's own shared
// segments (a few MiB touched) are mapped too, hence the margin above.
TEST(SharedArray, OwnPeakCountsTheHostsArraysOnce) {
  const HostTopology hosts(world(), 0);
  const Communicator& host = hosts.host();
  constexpr std::int64_t kSlice = std::int64_t{32} << 20;
  if (!reset_peak_memory()) GTEST_SKIP() << "no /proc/self/clear_refs: the peak cannot be restarted";
  const double before = peak_memory_mib() - own_peak_memory_mib();  // MPI's own shared pages of others
  const double peers_mib = static_cast<double>((host.size() - 1) * kSlice) / (1 << 20);
  const std::int64_t kept = own_shared_slice_bytes();  // small arrays of earlier tests, kept for reuse
  {
    SharedArray<double> array(host, kSlice / 8);
    for (std::int64_t i = 0; i < kSlice / 8; ++i) array.mine()[i] = static_cast<double>(i);
    array.synchronize();
    double sum = 0;
    for (std::int64_t i = 0; i < array.first(host.size()); ++i) sum += array[i];
    EXPECT_GT(sum, 0.0);
    const double left_out = peak_memory_mib() - own_peak_memory_mib() - before;
    EXPECT_GE(left_out, peers_mib - 1) << "host of " << host.size();
    EXPECT_LE(left_out, peers_mib + 16) << "host of " << host.size();
    EXPECT_EQ(own_shared_slice_bytes(), kept + kSlice);
    array.synchronize();
  }
  EXPECT_EQ(own_shared_slice_bytes(), kept);  // too big to keep
  // Unmapped, the peers' pages leave the resident size but not its high-water mark: the own peak still leaves them
  // out (the window recorded it before unmapping).
  EXPECT_GE(peak_memory_mib() - own_peak_memory_mib() - before, peers_mib - 1) << "host of " << host.size();
}

TEST(SharedArray, EmptySlicesAreAllowed) {
  const HostTopology hosts(world(), 0);
  SharedArray<double> array(hosts.host(), hosts.host().rank() == 0 ? 0 : 2);
  if (hosts.host().rank() > 0) array.mine()[0] = array.mine()[1] = hosts.host().rank();
  array.synchronize();
  EXPECT_EQ(array.first(1), 0);
  for (int r = 1; r < hosts.host().size(); ++r) EXPECT_EQ(array[array.first(r)], r);
  array.synchronize();
}

// A freed small array's memory is taken by the next array of the same ranks that fits in it (same address), cleared:
// every rank reads zeros in every slice, then what each wrote into its new slice. One that does not fit is made anew.
TEST(SharedArray, AFreedSmallArrayIsReusedClearedByTheNextOfTheSameHost) {
  for (int size : {1, 2, 0}) {
    SCOPED_TRACE("host size " + std::to_string(size));
    free_kept_shared_arrays();  // host sizes 1 and 2 at np 1: the same ranks
    const HostTopology hosts(world(), size);
    const Communicator& host = hosts.host();
    const double* freed = nullptr;
    {
      SharedArray<double> first(host, 1000 + 7 * host.rank());
      for (std::int64_t i = 0; i < 1000 + 7 * host.rank(); ++i) first.mine()[i] = 1.0 + static_cast<double>(i);
      first.synchronize();
      freed = first.data();
    }
    const SharedWindowCounts before = shared_window_counts();
    SharedArray<std::int64_t> second(host, 300 + 11 * host.rank());
    EXPECT_EQ(shared_window_counts().reused, before.reused + 1);
    EXPECT_EQ(shared_window_counts().made, before.made);
    EXPECT_EQ(static_cast<const void*>(second.data()), static_cast<const void*>(freed));
    std::int64_t nonzero = 0;
    for (std::int64_t i = 0; i < second.first(host.size()); ++i) nonzero += second[i] != 0;
    EXPECT_EQ(nonzero, 0);
    second.synchronize();
    for (std::int64_t i = 0; i < 300 + 11 * host.rank(); ++i) second.mine()[i] = (std::int64_t{host.rank()} << 32) + i;
    second.synchronize();
    for (int r = 0; r < host.size(); ++r) {
      ASSERT_EQ(second.first(r + 1) - second.first(r), 300 + 11 * r);
      std::int64_t wrong = 0;
      for (std::int64_t i = 0; i < 300 + 11 * r; ++i) wrong += second[second.first(r) + i] != (std::int64_t{r} << 32) + i;
      EXPECT_EQ(wrong, 0) << "host rank " << r;
    }
    second.synchronize();
    // Bigger than the one array this host keeps: a new window.
    const SharedWindowCounts before_big = shared_window_counts();
    SharedArray<double> big(host, 5000);
    EXPECT_EQ(shared_window_counts().made, before_big.made + 1);
    big.synchronize();
  }
}

// An array of other ranks never takes a kept one: a window freed by a host of 2 ranks is not reused by the machine's
// host of 3 or 4, nor by a host of 1 (the last rank of 3, a host of 1 in both, may).
TEST(SharedArray, KeptArraysServeOnlyTheSameRanks) {
  if (world().size() < 3) GTEST_SKIP() << "needs 3 ranks or more";
  free_kept_shared_arrays();
  EXPECT_EQ(own_shared_slice_bytes(), 0);
  const HostTopology pairs(world(), 2), machine(world(), 0), singles(world(), 1);
  { SharedArray<double> freed(pairs.host(), 4096); }
  const SharedWindowCounts before = shared_window_counts();
  { SharedArray<double> whole(machine.host(), 8); }
  EXPECT_EQ(shared_window_counts().made, before.made + 1);
  EXPECT_EQ(shared_window_counts().reused, before.reused);
  const SharedWindowCounts before_own = shared_window_counts();
  { SharedArray<double> own(singles.host(), 8); }
  const bool same_ranks = pairs.host().size() == 1;
  EXPECT_EQ(shared_window_counts().made, before_own.made + (same_ranks ? 0 : 1));
  EXPECT_EQ(shared_window_counts().reused, before_own.reused + (same_ranks ? 1 : 0));
}

// Arrays above kKeptArrayMaxBytes are freed at once, and a host keeps at most kKeptBytesPerHost: after six arrays
// of 3/4 of the largest kept size are freed, the host's ranks hold at least the last and at most the budget.
TEST(SharedArray, ReuseKeepsAtMostItsBudgetPerHost) {
  free_kept_shared_arrays();
  EXPECT_EQ(own_shared_slice_bytes(), 0);
  const HostTopology hosts(world(), 0);
  const Communicator& host = hosts.host();
  const std::int64_t slice = kKeptArrayMaxBytes * 3 / 4 / host.size() / 8;
  {
    std::vector<SharedArray<double>> arrays;
    for (int k = 0; k < 6; ++k) arrays.emplace_back(host, slice);
  }
  const std::int64_t held = host.sum(own_shared_slice_bytes());
  EXPECT_GE(held, slice * 8 * host.size());
  EXPECT_LE(held, kKeptBytesPerHost);
  { SharedArray<double> too_big(host, kKeptArrayMaxBytes / host.size() / 8 + 1); }
  EXPECT_EQ(host.sum(own_shared_slice_bytes()), held);
  free_kept_shared_arrays();
  EXPECT_EQ(own_shared_slice_bytes(), 0);
}
