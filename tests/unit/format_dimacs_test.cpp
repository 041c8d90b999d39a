// DIMACS-9 .gr files.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "graphrf/io/graph_formats.hpp"
#include "unit/format_test_util.hpp"

using namespace graphrf;
using graphrf::test::expect_error;
using graphrf::test::expect_split_invariant;
using graphrf::test::load;

namespace {
constexpr GraphFormat kGr = GraphFormat::dimacs;
}

TEST(Dimacs, RoadNetworkStyle) {
  const std::string file =
      "c 9th DIMACS Implementation Challenge: Shortest Paths\n"
      "c http://www.dis.uniroma1.it/~challenge9\n"
      "c\n"
      "p sp 4 5\n"
      "c graph contains 4 nodes and 5 arcs\n"
      "a 1 2 803\n"
      "a 2 1 803\n"
      "a 2 3 158.5\n"
      "\n"
      "a 3 3 1\n"
      "a 4 1 77";
  const auto r = load(kGr, file, "USA-road-d.NY.gr");
  EXPECT_EQ(r.header.declared_nodes, 4);
  EXPECT_EQ(r.header.declared_entries, 5);
  EXPECT_EQ(r.header.data_first_line, 5);
  EXPECT_TRUE(r.header.has_weights);
  const std::vector<Arc> want{{1, 2, 803}, {2, 1, 803}, {2, 3, 158.5}, {4, 1, 77}};
  EXPECT_EQ(r.arcs, want);
  EXPECT_EQ(r.self_loops_dropped, 1);
  EXPECT_EQ(r.records, 5);
  expect_split_invariant(kGr, file, "USA-road-d.NY.gr");
  const auto unweighted = load(kGr, file, "USA-road-d.NY.gr", {}, {.weight_column = -1});
  EXPECT_EQ(unweighted.arcs[2].w, 1.0);
}

TEST(Dimacs, OtherProblemWords) {
  const auto r = load(kGr, "p max 3 2\nc source/sink lines would be 'n'\na 1 2 5\na 2 3 4\n", "flow.dimacs");
  EXPECT_EQ(r.arcs, (std::vector<Arc>{{1, 2, 5}, {2, 3, 4}}));
}

TEST(Dimacs, MalformedInput) {
  expect_error(kGr, "c nothing\n", "n.gr", 0, "no DIMACS problem line in the first 1 MiB");
  expect_error(kGr, "c x\na 1 2 3\np sp 2 1\n", "n.gr", 2, "expected the DIMACS problem line");
  expect_error(kGr, "p sp two 1\n", "n.gr", 1, "malformed DIMACS problem line");
  const std::string head = "c\np sp 4941 2\na 1 2 3\n";  // arcs start at line 3
  expect_error(kGr, head + "a 1 5000 3\n", "power.gr", 4, "node id 5000 out of range 1..4941");
  expect_error(kGr, head + "a 1 2\n", "power.gr", 4, "too few columns: expected a DIMACS arc 'a u v w'");
  expect_error(kGr, head + "a 1 2 0\n", "power.gr", 4, "weight '0' is zero");
  expect_error(kGr, head + "a 1 2 -4\n", "power.gr", 4, "weight '-4' is negative");
  expect_error(kGr, head + "e 1 2\n", "power.gr", 4, "unexpected DIMACS line type 'e'");
  expect_error(kGr, head + "p sp 3 3\n", "power.gr", 4, "a second DIMACS problem line");
  expect_error(kGr, head + "a 1 2 3abc\n", "power.gr", 4, "weight '3abc' is not a number: trailing 'abc'");
  const std::string bad = head + "c\na 2 1 3\na 3 4 3\nc\na 4 1 x\n";
  expect_error(kGr, bad, "power.gr", 8, "weight 'x' is not a number");
  expect_split_invariant(kGr, bad, "power.gr");
}
