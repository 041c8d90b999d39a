// Edge lists with string node ids (--ids auto|integer|string): which lines are headers, when auto reads
// names, the names each chunk returns (distinct, in byte order), and FILE:LINE errors in integer mode.
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
using graphrf::test::NamedArc;

namespace {
constexpr GraphFormat kEL = GraphFormat::edge_list;
constexpr test::LoadOptions kAuto{.ids = IdMode::automatic};
constexpr test::LoadOptions kString{.ids = IdMode::string};
}  // namespace

TEST(EdgeListIds, ParseIdModeNamesTheOption) {
  EXPECT_EQ(parse_id_mode("auto"), IdMode::automatic);
  EXPECT_EQ(parse_id_mode("integer"), IdMode::integer);
  EXPECT_EQ(parse_id_mode("string"), IdMode::string);
  EXPECT_THROW(parse_id_mode("names"), InputError);
  try {
    parse_id_mode("int");
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("graph.ids: unknown mode 'int' (expected auto, integer or string)"));
  }
}

// The case of the issue: two words per line used to be taken for a header, then the next line failed.
TEST(EdgeListIds, TwoWordEdgeListIsReadAsNamesInAutoMode) {
  const std::string file = "alice bob\nbob carol\ncarol alice\n";
  const auto r = load(kEL, file, "people.txt", {}, kAuto);
  EXPECT_EQ(r.header.skipped_header_line, 0);
  EXPECT_EQ(r.header.ids, IdMode::string);
  EXPECT_EQ(r.named_arcs, (std::vector<NamedArc>{{"alice", "bob", 1}, {"bob", "carol", 1}, {"carol", "alice", 1}}));
  expect_split_invariant(kEL, file, "people.txt", kAuto);
  expect_split_invariant(kEL, file, "people.txt", kString);
}

TEST(EdgeListIds, AutoIsDecidedByTheFirstEdgeLine) {
  EXPECT_EQ(load(kEL, "1 2\n2 3\n", "g.txt", {}, kAuto).header.ids, IdMode::integer);
  EXPECT_EQ(load(kEL, "1 2\n2 3\n", "g.txt", {}, kAuto).arcs, (std::vector<Arc>{{1, 2, 1}, {2, 3, 1}}));
  // One stray token after integer lines is an error naming its line, not a renumbering of every node.
  const std::string stray = "0 1\n1 2\n2 x\n3 4\n";
  expect_error(kEL, stray, "stray.txt", 3,
               "node id 'x' is not a non-negative integer, but the first edge line (line 1) has integer ids, so "
               "graph.ids auto reads integers; give graph.ids string to read every id as a name",
               kAuto);
  expect_split_invariant(kEL, stray, "stray.txt", kAuto);
  expect_error(kEL, "# c\n1 2\n-4 3\n", "neg.txt", 3, "the first edge line (line 2) has integer ids", kAuto);
  // A name on the first edge line makes every id a name, integer-looking ones included.
  const std::string named = "a 2\n2 10\n10 b\n";
  const auto r = load(kEL, named, "named.txt", {}, kAuto);
  EXPECT_EQ(r.header.ids, IdMode::string);
  EXPECT_EQ(r.named_arcs, (std::vector<NamedArc>{{"a", "2", 1}, {"2", "10", 1}, {"10", "b", 1}}));
  expect_split_invariant(kEL, named, "named.txt", kAuto);
  // Negative numbers and numbers that do not fit in 64 bits are names too.
  EXPECT_EQ(load(kEL, "-1 2\n", "g.txt", {}, kAuto).header.ids, IdMode::string);
  EXPECT_EQ(load(kEL, "99999999999999999999 2\n", "g.txt", {}, kAuto).header.ids, IdMode::string);
  // A file without edge lines reads as integers (nothing to name).
  EXPECT_EQ(load(kEL, "# nothing\n", "empty.txt", {}, kAuto).header.ids, IdMode::integer);
}

TEST(EdgeListIds, ChunkNamesAreDistinctAndInByteOrder) {
  // Byte order, not numeric order: "10" < "9", "B" < "a"; the parser returns each chunk's names sorted.
  const std::string file = "9 10\nb B\n10 a\n";
  ChunkContext ctx;
  ctx.file_name = "order.txt";
  FileHeader header = parse_header(kEL, file, "order.txt", 0, IdMode::string);
  const ParsedChunk chunk = parse_chunk(kEL, header, file, ctx);
  ASSERT_EQ(chunk.names.size(), 5u);
  const std::vector<std::string> want{"10", "9", "B", "a", "b"};
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_EQ(chunk.names[i], want[i]);
  // Arcs hold positions in `names`.
  ASSERT_EQ(chunk.arcs.size(), 3u);
  EXPECT_EQ(chunk.arcs[0].u, 1);  // "9"
  EXPECT_EQ(chunk.arcs[0].v, 0);  // "10"
  EXPECT_EQ(chunk.arcs[1].u, 4);  // "b"
  EXPECT_EQ(chunk.arcs[1].v, 2);  // "B"
}

TEST(EdgeListIds, HeadersUnderEachMode) {
  // A header naming both endpoint columns is a header in every mode; its weight name still counts.
  const std::string named = "Source,Target,weight\nalice,bob,2.5\n";
  for (auto options : {kAuto, kString}) {
    const auto r = load(kEL, named, "named.csv", {}, options);
    EXPECT_EQ(r.header.skipped_header_line, 1);
    EXPECT_EQ(r.header.weight_column, 3);
    EXPECT_EQ(r.named_arcs, (std::vector<NamedArc>{{"alice", "bob", 2.5}}));
  }
  // Words followed by numeric ids: a header in auto and integer mode, an edge with --ids string.
  const std::string words = "cited citing\n1 2\n";
  EXPECT_EQ(load(kEL, words, "w.txt", {}, kAuto).header.skipped_header_line, 1);
  EXPECT_EQ(load(kEL, words, "w.txt", {}, kAuto).arcs, (std::vector<Arc>{{1, 2, 1}}));
  EXPECT_EQ(load(kEL, words, "w.txt").header.skipped_header_line, 1);
  const auto as_names = load(kEL, words, "w.txt", {}, kString);
  EXPECT_EQ(as_names.header.skipped_header_line, 0);
  EXPECT_EQ(as_names.named_arcs, (std::vector<NamedArc>{{"cited", "citing", 1}, {"1", "2", 1}}));
  // A one-line file of two words is one edge.
  EXPECT_EQ(load(kEL, "x y\n", "one.txt", {}, kAuto).named_arcs, (std::vector<NamedArc>{{"x", "y", 1}}));
}

TEST(EdgeListIds, StringIdsKeepWeightsSelfLoopsAndCommas) {
  const std::string file = "# CiteSeer-like\nzhang01,li02,3\nli02,li02,1\nli02\tzhang01\t2\n";
  const auto dropped = load(kEL, file, "c.csv", {}, kString);
  EXPECT_EQ(dropped.named_arcs, (std::vector<NamedArc>{{"zhang01", "li02", 3}, {"li02", "zhang01", 2}}));
  EXPECT_EQ(dropped.self_loops_dropped, 1);
  const auto kept = load(kEL, file, "c.csv", {}, {.keep_self_loops = true, .ids = IdMode::string});
  EXPECT_EQ(kept.named_arcs.size(), 3u);
  expect_split_invariant(kEL, file, "c.csv", kString);
}

TEST(EdgeListIds, IntegerModeNamesFileAndLineOfANonIntegerId) {
  const test::LoadOptions integer{.ids = IdMode::integer};
  expect_error(kEL, "1 2\n2 3\n3 x7\n", "mixed.txt", 3,
               "node id 'x7' is not an integer (read with graph.ids integer; graph.ids string or auto reads node names)",
               integer);
  expect_error(kEL, "1 2\nalice 3\n", "mixed.txt", 2, "node id 'alice' is not an integer", integer);
  expect_error(kEL, "1 2\n2 3.5\n", "mixed.txt", 2, "node id '3.5' is not an integer", integer);
  expect_error(kEL, "1 2\n-4 3\n", "neg.txt", 2, "node id -4 is negative", integer);
  expect_split_invariant(kEL, "1 2\n2 3\n3 x7\n", "mixed.txt", integer);
  // String ids: an empty CSV field is still an error.
  expect_error(kEL, "a,b\nc,,d\n", "e.csv", 2, "empty node id", kString);
}

TEST(EdgeListIds, OtherFormatsRefuseStringIds) {
  try {
    parse_header(GraphFormat::matrix_market, "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n", "m.mtx", 0,
                 IdMode::string);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("graph.ids string applies only to edge lists; m.mtx is read as mtx"));
  }
  EXPECT_EQ(parse_header(GraphFormat::metis, "2 1\n2\n1\n", "g.graph", 0, IdMode::automatic).ids, IdMode::integer);
}
