// HugePageAllocator: big blocks are mappings of their own, 2 MiB-aligned and eligible for transparent huge pages,
// even after the executable told glibc to keep freed memory in its heap (where touched pages stay 4 KiB pages).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "graphrf/core/huge_pages.hpp"
#include "graphrf/core/reuse_freed_memory.hpp"

namespace graphrf {
namespace {

struct Mapping {
  std::uintptr_t begin = 0, end = 0;
  std::string name;
  int thp_eligible = -1;  // -1: the kernel does not say
};

// The mappings of this process, from /proc/self/smaps.
std::vector<Mapping> mappings() {
  std::vector<Mapping> out;
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  while (std::getline(smaps, line)) {
    std::istringstream in(line);
    std::string range;
    in >> range;
    const auto dash = range.find('-');
    if (dash != std::string::npos && range.find(':') == std::string::npos) {
      Mapping m;
      m.begin = std::stoull(range.substr(0, dash), nullptr, 16);
      m.end = std::stoull(range.substr(dash + 1), nullptr, 16);
      std::string field;
      for (int k = 0; k < 4 && in >> field; ++k) {
      }
      in >> m.name;
      out.push_back(m);
    } else if (line.rfind("THPeligible:", 0) == 0 && !out.empty()) {
      out.back().thp_eligible = std::stoi(line.substr(12));
    }
  }
  return out;
}

const Mapping* mapping_of(const std::vector<Mapping>& all, const void* p) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  for (const Mapping& m : all)
    if (a >= m.begin && a < m.end) return &m;
  return nullptr;
}

bool transparent_huge_pages_on() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string s;
  std::getline(f, s);
  return s.find("[never]") == std::string::npos && !s.empty();
}

// What is wrong with a big block allocated after the heap was told to keep freed memory ("" if nothing).
std::string check_block_after_heap_reuse() {
  reuse_freed_memory();  // as the executable runs: freed heap memory is kept and handed out again
  {
    // Heap memory touched and freed: a plain allocation of this size would come back from it.
    std::vector<char> touched(std::size_t{24} << 20, 1);
  }
  constexpr std::size_t kBytes = std::size_t{5} << 20;
  HugeVector<std::uint64_t> big(kBytes / sizeof(std::uint64_t));
  std::iota(big.begin(), big.end(), 0);
  const auto address = reinterpret_cast<std::uintptr_t>(big.data());
  if (address % HugePageAllocator<char>::kHugePage != 0) return "the block is not 2 MiB-aligned";
  const auto all = mappings();
  const Mapping* m = mapping_of(all, big.data());
  if (!m) return "the block lies in no mapping";
  if (m->name == "[heap]") return "the block came from the heap";
  if (m->end < address + kBytes) return "the block's mapping is too short";
  if (transparent_huge_pages_on() && m->thp_eligible == 0) return "the block is not eligible for huge pages";
  for (std::size_t k = 0; k < big.size(); k += 4099)
    if (big[k] != k) return "the block lost what was written";
  return "";
}

// In a child process: the heap setting holds for the whole process, and other tests expect glibc's defaults.
TEST(HugePageAllocator, BigBlocksAreAlignedMappingsOutsideTheHeap) {
  EXPECT_EXIT(
      {
        const std::string why = check_block_after_heap_reuse();
        if (!why.empty()) std::fprintf(stderr, "%s\n", why.c_str());
        std::_Exit(why.empty() ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(HugePageAllocator, GrowingKeepsContentsAndFreeingUnmaps) {
  HugeVector<std::uint32_t> v;
  // Grows from plain small blocks into mapped ones and through several reallocations.
  for (std::uint32_t k = 0; k < (3u << 20); ++k) v.push_back(k * 2654435761u);
  for (std::uint32_t k = 0; k < v.size(); k += 997) ASSERT_EQ(v[k], k * 2654435761u);
  const void* data = v.data();
  ASSERT_NE(mapping_of(mappings(), data), nullptr);
  HugeVector<std::uint32_t>().swap(v);  // frees the block
  EXPECT_EQ(mapping_of(mappings(), data), nullptr);  // unmapped, not kept
  // Small blocks still come from operator new.
  HugeVector<char> small(100, 'x');
  EXPECT_EQ(small[99], 'x');
}

}  // namespace
}  // namespace graphrf
