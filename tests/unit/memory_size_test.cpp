// Memory sizes: --memory-limit spellings, the available-memory rule (MemAvailable capped by a cgroup), the
// address-space limit, and the budget readers check declared sizes against.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "graphrf/core/error.hpp"
#include "graphrf/core/memory_budget.hpp"
#include "graphrf/core/memory_size.hpp"
#include "graphrf/mpi/memory_limit.hpp"

using namespace graphrf;

TEST(MemorySize, ParsesUnitsInPowersOf1024) {
  EXPECT_EQ(parse_memory_size("123", "--m"), 123u);
  EXPECT_EQ(parse_memory_size("64K", "--m"), 64u << 10);
  EXPECT_EQ(parse_memory_size("512m", "--m"), 512u << 20);
  EXPECT_EQ(parse_memory_size("8G", "--m"), 8ull << 30);
  EXPECT_EQ(parse_memory_size("8GiB", "--m"), 8ull << 30);
  EXPECT_EQ(parse_memory_size("8GB", "--m"), 8ull << 30);
  EXPECT_EQ(parse_memory_size("1.5G", "--m"), 3ull << 29);
  EXPECT_EQ(parse_memory_size("2T", "--m"), 2ull << 40);
}

TEST(MemorySize, RefusesWhatIsNotASize) {
  for (const char* bad : {"", "lots", "G", "-1G", "0", "8X", "1e30G", "nan", "8 G"}) {
    try {
      parse_memory_size(bad, "--memory-limit");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("--memory-limit: ", 0), 0u) << e.what();
      EXPECT_NE(std::string(e.what()).find("'" + std::string(bad) + "'"), std::string::npos) << e.what();
    }
  }
}

TEST(MemorySize, AvailableIsMemAvailableCappedByTheCgroup) {
  const std::string meminfo = "MemTotal:       24000000 kB\nMemFree:  100 kB\nMemAvailable:   20000000 kB\n";
  EXPECT_EQ(available_memory_bytes(meminfo, "", ""), 20000000ull * 1024);
  // cgroup v2 "max" and cgroup v1's huge "no limit" value leave MemAvailable.
  EXPECT_EQ(available_memory_bytes(meminfo, "max\n", "123\n"), 20000000ull * 1024);
  EXPECT_EQ(available_memory_bytes(meminfo, "9223372036854771712\n", "0\n"), 20000000ull * 1024);
  // A limit of 4 GiB with 1 GiB used leaves 3 GiB.
  EXPECT_EQ(available_memory_bytes(meminfo, "4294967296\n", "1073741824\n"), 3ull << 30);
  // Over the limit: nothing left (1 byte, so the check still refuses); nothing readable: 0 (unknown).
  EXPECT_EQ(available_memory_bytes(meminfo, "100\n", "200\n"), 1u);
  EXPECT_EQ(available_memory_bytes("", "", ""), 0u);
  EXPECT_EQ(available_memory_bytes("", "4096\n", "96\n"), 4000u);
}

TEST(MemorySize, FormatsBytes) {
  EXPECT_EQ(format_bytes(900), "900 B");
  EXPECT_EQ(format_bytes(1536), "1.5 KiB");
  EXPECT_EQ(format_bytes(64.0 * (1 << 20)), "64 MiB");
  EXPECT_EQ(format_bytes(3.0 * (1ull << 30)), "3 GiB");
}

TEST(MemorySize, AddressSpaceLeftIsTheSoftLimitLessWhatIsMapped) {
  const std::string status = "Name:\tgraphrf\nVmPeak:\t 900000 kB\nVmSize:\t  500000 kB\nVmHWM:\t 1000 kB\n";
  EXPECT_EQ(address_space_left_bytes(3000000000ull, status), 3000000000ull - 500000ull * 1024);
  // No limit (RLIM_INFINITY or unset): unknown. Already beyond it: 1 byte, so every check refuses.
  EXPECT_EQ(address_space_left_bytes(~0ull, status), 0u);
  EXPECT_EQ(address_space_left_bytes(0, status), 0u);
  EXPECT_EQ(address_space_left_bytes(1000, status), 1u);
  // VmSize unreadable: the whole limit.
  EXPECT_EQ(address_space_left_bytes(4096, ""), 4096u);
}

TEST(MemorySize, SmallerKnownTreatsZeroAsUnknown) {
  EXPECT_EQ(smaller_known(0, 0), 0u);
  EXPECT_EQ(smaller_known(0, 7), 7u);
  EXPECT_EQ(smaller_known(7, 0), 7u);
  EXPECT_EQ(smaller_known(9, 7), 7u);
}

TEST(MemoryBudget, RefusesOnlyBeyondTheBudget) {
  set_memory_budget(0);
  EXPECT_NO_THROW(require_memory(1e18, "anything"));  // no budget: no check
  set_memory_budget(1u << 20);
  EXPECT_NO_THROW(require_memory(1 << 20, "exactly the budget"));
  try {
    require_memory(3.0 * (1 << 20), "f.h5: /q (shape 16 x 100000000)");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("f.h5: /q (shape 16 x 100000000) needs about 3 MiB per rank, more than the 1 MiB"), std::string::npos) << what;
    EXPECT_NE(what.find("--memory-limit"), std::string::npos) << what;
  }
  set_memory_budget(0);
}

// The default --memory-limit counts what the run holds already: a check made after loading compares an estimate
// that includes the loaded graph with it (a 10^7-node run at np 2 was refused when only the memory left beside the
// graph counted).
TEST(MemorySize, TheDefaultLimitCountsWhatTheRunHoldsAlready) {
  constexpr std::uint64_t GiB = std::uint64_t{1} << 30;
  // 14 GiB left on the node, two ranks holding 8 GiB between them: 11 GiB each, not 7.
  EXPECT_EQ(default_memory_limit(14 * GiB, 8 * GiB, 2, 0, 4 * GiB), 11 * GiB);
  EXPECT_EQ(default_memory_limit(14 * GiB, 0, 2, 0, 0), 7 * GiB);  // before loading: nothing held
  // An address-space limit caps it, what the rank holds counting on that side too.
  EXPECT_EQ(default_memory_limit(14 * GiB, 8 * GiB, 2, 1 * GiB, 4 * GiB), 5 * GiB);
  // Unknown figures: the other one decides, or nothing is known.
  EXPECT_EQ(default_memory_limit(0, 8 * GiB, 2, 3 * GiB, 1 * GiB), 4 * GiB);
  EXPECT_EQ(default_memory_limit(0, 8 * GiB, 2, 0, 1 * GiB), 0u);
}
