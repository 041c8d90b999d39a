// find_named_nodes: names from other inputs matched to a named graph's canonical indices at any rank count,
// with each rank asking for different names (or none) and unknown names answered -1.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "graphrf/graph/node_lookup.hpp"
#include "mpi_test_support.hpp"

using namespace graphrf;
using namespace graphrf::testing;

TEST(NodeLookup, NamesFindTheirCanonicalIndexOnEveryRank) {
  // Byte order: "10" < "2" < "a" < "b" < "caf\xc3\xa9" < "z9".
  const SharedTempFile file("lookup.txt", "a 2\n2 10\n10 b\nb a\na 10\nz9 caf\xc3\xa9\ncaf\xc3\xa9 a\n");
  for (const std::string partition : {"block", "metis"}) {
    const DistributedGraph g = load(file.path(), partition);
    ASSERT_TRUE(nodes_are_named(g));
    const std::vector<std::string> order{"10", "2", "a", "b", "caf\xc3\xa9", "z9"};
    // Rank r asks for every name, shifted by r, plus names of no node (an integer that is no name, a prefix,
    // names below the first and above the last); rank 1 asks for nothing.
    NodeNames queries;
    std::vector<std::int64_t> want;
    if (world().rank() != 1) {
      for (std::size_t k = 0; k < order.size(); ++k) {
        const std::size_t i = (k + static_cast<std::size_t>(world().rank())) % order.size();
        queries.push_back(order[i]);
        want.push_back(static_cast<std::int64_t>(i));
      }
      for (const char* unknown : {"1", "0", "caf", "zz", ""}) {
        queries.push_back(unknown);
        want.push_back(-1);
      }
    }
    EXPECT_EQ(find_named_nodes(g, queries), want) << partition;
  }
}

TEST(NodeLookup, IntegerGraphsAreNotNamed) {
  const DistributedGraph g = load("grid:3x3", "block");
  EXPECT_FALSE(nodes_are_named(g));
}
