// The distributed sort of string node ids, and graphs loaded with them, against orders the test computes
// itself: any rank count gives the same canonical order (ascending bytes) and the same graph.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "graphrf/io/name_sort.hpp"
#include "mpi_test_support.hpp"

using namespace graphrf;
using graphrf::testing::gather_entries;
using graphrf::testing::SharedTempFile;
using graphrf::testing::Triplet;
using graphrf::testing::world;

namespace {

// The names rank `rank` of `ranks` holds: overlapping ranges of varied length and bytes, rank 1 none.
std::vector<std::string> names_of_rank(int rank, int ranks) {
  std::vector<std::string> out;
  if (rank == 1) return out;
  for (int k = rank * 37; k < rank * 37 + 150; ++k) {
    std::string name = std::to_string(k * 7919 % 1000);
    if (k % 3 == 0) name = "n" + name;
    if (k % 11 == 0) name += "\xc3\xa9";  // UTF-8 bytes sort after ASCII
    out.push_back(name);
  }
  (void)ranks;
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

TEST(NameSort, CanonicalIndicesAreTheByteOrderOfAllNames) {
  const Communicator& comm = world();
  std::set<std::string> all;
  for (int r = 0; r < comm.size(); ++r)
    for (const auto& name : names_of_rank(r, comm.size())) all.insert(name);
  const std::vector<std::string> expected(all.begin(), all.end());  // std::string compares bytes (as unsigned char)

  const std::vector<std::string> mine = names_of_rank(comm.rank(), comm.size());
  NodeNames local;
  for (const auto& name : mine) local.push_back(name);
  const SortedNames sorted = sort_names(comm, local);

  ASSERT_EQ(sorted.dist.total(), static_cast<std::int64_t>(expected.size()));
  ASSERT_EQ(sorted.owned.size(), static_cast<std::size_t>(sorted.dist.count(comm.rank())));
  for (std::size_t k = 0; k < sorted.owned.size(); ++k)
    EXPECT_EQ(sorted.owned[k], expected[static_cast<std::size_t>(sorted.dist.first(comm.rank())) + k]);
  ASSERT_EQ(sorted.index_of.size(), mine.size());
  for (std::size_t k = 0; k < mine.size(); ++k)
    EXPECT_EQ(sorted.index_of[k], std::lower_bound(expected.begin(), expected.end(), mine[k]) - expected.begin());
}

TEST(NameSort, EdgeListWithNamesLoadsTheSameGraphAtAnyRankCount) {
  // A path zz - 10 - 9 - b - A plus an isolated node named only in a self-loop; weights from column 3.
  const SharedTempFile file("names.txt", "zz 10 1\n9 10 2\n9 b 3\nA b 4\niso iso 1\n");
  const std::vector<std::string> order{"10", "9", "A", "b", "iso", "zz"};  // byte order
  const auto at = [&](const std::string& name) {
    return static_cast<std::int64_t>(std::find(order.begin(), order.end(), name) - order.begin());
  };
  for (const std::string partition : {"block", "metis"}) {
    GraphOptions o;
    o.graph = file.path();
    o.partition = partition;
    const DistributedGraph g = load_graph(world(), o);
    ASSERT_TRUE(g.report.string_ids);
    ASSERT_EQ(g.n_global(), 6);
    // Names: one block per rank, in rank order.
    const std::int64_t first = world().exscan_sum(static_cast<std::int64_t>(g.names.size()));
    for (std::size_t k = 0; k < g.names.size(); ++k) EXPECT_EQ(g.names[k], order[static_cast<std::size_t>(first) + k]);
    EXPECT_EQ(world().sum(static_cast<std::int64_t>(g.names.size())), 6);
    std::vector<Triplet> want;
    for (auto [u, v, w] : {std::tuple{"zz", "10", 1.0}, {"9", "10", 2.0}, {"9", "b", 3.0}, {"A", "b", 4.0}}) {
      want.push_back({at(u), at(v), w});
      want.push_back({at(v), at(u), w});
    }
    std::sort(want.begin(), want.end());
    const std::vector<Triplet> got = gather_entries(g, false);
    ASSERT_EQ(got.size(), want.size()) << partition;
    for (std::size_t k = 0; k < got.size(); ++k) {
      EXPECT_EQ(got[k].row, want[k].row);
      EXPECT_EQ(got[k].col, want[k].col);
      EXPECT_EQ(got[k].value, want[k].value);
    }
  }
}
