// METIS .graph files.
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
constexpr GraphFormat kMetis = GraphFormat::metis;
}

TEST(Metis, UnweightedWithCommentsAndIsolatedVertices) {
  // 5 vertices: 1-2, 1-3, 2-3, 3-4; vertex 5 isolated (empty line). Comment lines are not vertices.
  const std::string file =
      "% a METIS graph\n"
      "5 4\n"
      "2 3\n"
      "% comment between vertex lines\n"
      "1 3\n"
      "1 2 4\n"
      "3 \n"
      "\n";
  const auto r = load(kMetis, file, "g.graph");
  EXPECT_EQ(r.header.declared_nodes, 5);
  EXPECT_EQ(r.header.declared_entries, 4);
  EXPECT_EQ(r.header.data_first_line, 3);
  EXPECT_FALSE(r.header.has_weights);
  const std::vector<Arc> want{{1, 2, 1}, {1, 3, 1}, {2, 1, 1}, {2, 3, 1}, {3, 1, 1},
                              {3, 2, 1}, {3, 4, 1}, {4, 3, 1}};
  EXPECT_EQ(r.arcs, want);
  EXPECT_EQ(r.records, 5);
  expect_split_invariant(kMetis, file, "g.graph");
}

TEST(Metis, Fmt011WithTwoVertexWeightsAndEdgeWeights) {
  // Each line: w1 w2 (neighbour edge_weight)*; vertex 4 isolated (empty line), vertex 5 only has weights.
  const std::string file =
      "%fmt 011, ncon 2\n"
      "5 2 011 2\n"
      "5 6 2 7\n"
      "1 1 1 7 3 9\n"
      "% a comment\n"
      "2 2 2 9\n"
      "\n"
      "4 4";
  const auto r = load(kMetis, file, "w.graph");
  EXPECT_EQ(r.header.metis_ncon, 2);
  EXPECT_FALSE(r.header.metis_vertex_size);
  EXPECT_TRUE(r.header.metis_edge_weights);
  EXPECT_TRUE(r.header.has_weights);
  const std::vector<Arc> want{{1, 2, 7}, {2, 1, 7}, {2, 3, 9}, {3, 2, 9}};
  EXPECT_EQ(r.arcs, want);
  EXPECT_EQ(r.records, 5);
  expect_split_invariant(kMetis, file, "w.graph");
  // -1 ignores the edge weights but still skips them.
  const auto u = load(kMetis, file, "w.graph", {}, {.weight_column = -1});
  EXPECT_FALSE(u.header.has_weights);
  EXPECT_EQ(u.arcs, (std::vector<Arc>{{1, 2, 1}, {2, 1, 1}, {2, 3, 1}, {3, 2, 1}}));
}

TEST(Metis, FmtVariants) {
  // fmt 1: edge weights only.
  EXPECT_EQ(load(kMetis, "2 1 1\n2 4\n1 4\n", "a.graph").arcs, (std::vector<Arc>{{1, 2, 4}, {2, 1, 4}}));
  // fmt 10 = 010: one vertex weight (ncon defaults to 1).
  const auto vw = load(kMetis, "2 1 10\n8 2\n9 1\n", "b.graph");
  EXPECT_EQ(vw.header.metis_ncon, 1);
  EXPECT_EQ(vw.arcs, (std::vector<Arc>{{1, 2, 1}, {2, 1, 1}}));
  // fmt 100: a vertex size first.
  const auto vs = load(kMetis, "2 1 100\n3 2\n3 1\n", "c.graph");
  EXPECT_TRUE(vs.header.metis_vertex_size);
  EXPECT_EQ(vs.arcs, (std::vector<Arc>{{1, 2, 1}, {2, 1, 1}}));
  // fmt 111 ncon 3: size, 3 weights, then neighbour/weight pairs.
  const std::string all = "3 1 111 3\n1 5 5 5 2 0.5\n1 5 5 5 1 0.5\n1 5 5 5\n";
  EXPECT_EQ(load(kMetis, all, "d.graph").arcs, (std::vector<Arc>{{1, 2, 0.5}, {2, 1, 0.5}}));
  expect_split_invariant(kMetis, all, "d.graph");
  // fmt 0 and 000 are unweighted.
  EXPECT_FALSE(load(kMetis, "2 1 000\n2\n1\n", "e.graph").header.has_weights);
}

TEST(Metis, SelfLoopsAndTrailingBlankLines) {
  const std::string file = "2 1\n1 2\n1\n\n\n";  // vertex 1 lists itself; two blank lines past n are tolerated
  const auto r = load(kMetis, file, "s.graph");
  EXPECT_EQ(r.arcs, (std::vector<Arc>{{1, 2, 1}, {2, 1, 1}}));
  EXPECT_EQ(r.self_loops_dropped, 1);
  EXPECT_EQ(r.records, 4);
  const auto kept = load(kMetis, file, "s.graph", {}, {.keep_self_loops = true});
  EXPECT_EQ(kept.arcs.front().u, 1);
  EXPECT_EQ(kept.arcs.front().v, 1);
  expect_split_invariant(kMetis, file, "s.graph");
}

TEST(Metis, MalformedHeadersAndLines) {
  expect_error(kMetis, "% only comments\n", "h.graph", 0, "no METIS header line in the first 1 MiB");
  expect_error(kMetis, "4\n", "h.graph", 1, "METIS header must be 'n m [fmt [ncon]]'");
  expect_error(kMetis, "4 3 2\n", "h.graph", 1, "METIS fmt '2' must be up to 3 binary digits");
  expect_error(kMetis, "4 3 1 2\n", "h.graph", 1, "ncon is given but fmt '1' has no vertex weights");
  expect_error(kMetis, "4 3 1x\n", "h.graph", 1, "METIS fmt '1x'");
  expect_error(kMetis, "-4 3\n", "h.graph", 1, "vertex count -4 is negative");
  const std::string head = "%\n4 3 1\n2 1\n";  // vertex 1 is line 3
  expect_error(kMetis, head + "1 1 3\n", "w.graph", 4, "neighbour 3 has no edge weight");
  expect_error(kMetis, head + "1 1 5 1\n", "w.graph", 4, "node id 5 out of range 1..4");
  expect_error(kMetis, head + "1 0\n", "w.graph", 4, "weight '0' is zero");
  expect_error(kMetis, head + "1 1\n%\n\n\n4 1\n", "w.graph", 8, "vertex line 5 but the METIS header declares 4");
  expect_error(kMetis, "3 1 11 2\n4 5 2 1\n4\n", "v.graph", 3, "too few columns: the METIS fmt puts 2 vertex");
  // The error's line number must not depend on where the file is split.
  const std::string bad = head + "1 1\n% c\n3 1 4 1x\n3 1\n";
  expect_error(kMetis, bad, "w.graph", 6, "weight '1x' is not a number");
  expect_split_invariant(kMetis, bad, "w.graph");
}
