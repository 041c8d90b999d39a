// Matrix Market coordinate files.
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
constexpr GraphFormat kMM = GraphFormat::matrix_market;
}

TEST(MatrixMarket, GeneralReal) {
  const std::string file =
      "%%MatrixMarket matrix coordinate real general\n"
      "% a comment\n"
      "%\n"
      "4 4 5\n"
      "1 2 0.5\n"
      "2 3 1.25e1\n"
      "3 3 7\n"
      "4 1 2\n"
      "  3   4   1\n";
  const auto r = load(kMM, file, "m.mtx");
  EXPECT_EQ(r.header.declared_nodes, 4);
  EXPECT_EQ(r.header.declared_entries, 5);
  EXPECT_EQ(r.header.data_first_line, 5);
  EXPECT_EQ(r.header.data_offset, 66);
  EXPECT_FALSE(r.header.symmetric);
  EXPECT_TRUE(r.header.has_weights);
  const std::vector<Arc> want{{1, 2, 0.5}, {2, 3, 12.5}, {4, 1, 2}, {3, 4, 1}};
  EXPECT_EQ(r.arcs, want);
  EXPECT_EQ(r.self_loops_dropped, 1);
  EXPECT_EQ(r.records, 5);
  expect_split_invariant(kMM, file, "m.mtx");
}

TEST(MatrixMarket, SymmetricPatternCaseInsensitiveBanner) {
  const std::string file =
      "%%matrixmarket MATRIX Coordinate Pattern Symmetric\n"
      "3 3 3\n"
      "2 1\n"
      "3 1\n"
      "3 2";
  const auto r = load(kMM, file, "p.mtx");
  EXPECT_TRUE(r.header.symmetric);
  EXPECT_FALSE(r.header.has_weights);
  const std::vector<Arc> want{{2, 1, 1}, {3, 1, 1}, {3, 2, 1}};
  EXPECT_EQ(r.arcs, want);
  expect_split_invariant(kMM, file, "p.mtx");
}

TEST(MatrixMarket, IntegerValuesAndIgnoredWeights) {
  const std::string file = "%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 2 3\n2 1 4\n";
  EXPECT_EQ(load(kMM, file, "i.mtx").arcs, (std::vector<Arc>{{1, 2, 3}, {2, 1, 4}}));
  const std::string negative = "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 2 -3\n2 1 0\n";
  const auto r = load(kMM, negative, "n.mtx", {}, {.weight_column = -1});
  EXPECT_FALSE(r.header.has_weights);
  EXPECT_EQ(r.arcs, (std::vector<Arc>{{1, 2, 1}, {2, 1, 1}}));
  expect_error(kMM, negative, "n.mtx", 3, "weight '-3' is negative");
}

TEST(MatrixMarket, UnsupportedBannersAreNamed) {
  const std::string tail = "\n3 3 1\n1 2 1\n";
  expect_error(kMM, "%%MatrixMarket matrix array real general" + tail, "a.mtx", 1, "'array' (dense) format");
  expect_error(kMM, "%%MatrixMarket matrix coordinate complex general" + tail, "c.mtx", 1, "'complex' values");
  expect_error(kMM, "%%MatrixMarket matrix coordinate real hermitian" + tail, "h.mtx", 1,
               "'hermitian' matrices are not supported");
  expect_error(kMM, "%%MatrixMarket matrix coordinate real skew-symmetric" + tail, "s.mtx", 1,
               "'skew-symmetric' matrices are not supported");
  expect_error(kMM, "%%MatrixMarket vector coordinate real general" + tail, "v.mtx", 1, "object 'vector'");
  expect_error(kMM, "%%MatrixMarket matrix coordinate real" + tail, "x.mtx", 1, "banner needs 4 words");
  expect_error(kMM, "3 3 1\n1 2 1\n", "nobanner.mtx", 1, "no %%MatrixMarket header: for a plain edge list use graph.format edgelist");
  expect_error(kMM, "%%MatrixMarket matrix coordinate real general\n% c\n3 4 1\n1 2 1\n", "rect.mtx", 3,
               "matrix is 3 x 4: a graph's adjacency matrix must be square");
  expect_error(kMM, "%%MatrixMarket matrix coordinate real general\n% only comments\n", "nosize.mtx", 0,
               "no MatrixMarket size line in the first 1 MiB");
  expect_error(kMM, "%%MatrixMarket matrix coordinate real general\n3 3\n", "short.mtx", 2,
               "size line must be 'rows cols nnz'");
}

TEST(MatrixMarket, BadEntriesNameTheLine) {
  const std::string head = "%%MatrixMarket matrix coordinate real general\n%\n4941 4941 3\n1 2 1\n";
  expect_error(kMM, head + "5000 1 1\n", "power.mtx", 5, "node id 5000 out of range 1..4941");
  expect_error(kMM, head + "0 1 1\n", "power.mtx", 5, "node id 0 out of range 1..4941");
  expect_error(kMM, head + "1 2\n", "power.mtx", 5, "too few columns: expected a MatrixMarket entry 'row col value'");
  expect_error(kMM, head + "1 2x 1\n", "power.mtx", 5, "node id '2x' is not an integer: trailing 'x'");
  expect_error(kMM, head + "1 2 1\n2 1 nan\n", "power.mtx", 6, "is NaN");
  expect_split_invariant(kMM, head + "1 3 1\n2 1 1\n1 1 nan\n", "power.mtx");
}

TEST(MatrixMarket, IntegerFieldRefusesNonIntegerValues) {
  const std::string head = "%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 2 3\n";
  expect_error(kMM, head + "2 1 1.5\n", "i.mtx", 4, "value '1.5' is not an integer, but the banner declares 'integer'");
  expect_error(kMM, head + "2 1 4x\n", "i.mtx", 4, "is not an integer");
  expect_split_invariant(kMM, head + "2 1 1.5\n", "i.mtx");
  // A real file with a decimal comma says so.
  expect_error(kMM, "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 1,5\n", "r.mtx", 3, "a decimal comma?");
}
