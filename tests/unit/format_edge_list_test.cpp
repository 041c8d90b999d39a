// Edge lists: SNAP, KONECT, TSV (cora.cites), CSV with a column-name header (pems_edges.csv).
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
using ::testing::HasSubstr;

namespace {
constexpr GraphFormat kEL = GraphFormat::edge_list;
}

TEST(EdgeList, SnapWithHashComments) {
  const std::string file =
      "# Directed graph (each unordered pair of nodes is saved once): CA-GrQc.txt \n"
      "# Nodes: 5242 Edges: 28980\n"
      "# FromNodeId\tToNodeId\n"
      "3466\t937\n"
      "3466\t5233\n"
      "\n"
      "0\t9223372036854775807\n";
  const auto r = load(kEL, file, "CA-GrQc.txt");
  EXPECT_EQ(r.header.data_offset, 0);
  EXPECT_EQ(r.header.skipped_header_line, 0);
  EXPECT_FALSE(r.header.has_weights);
  EXPECT_EQ(r.header.declared_nodes, -1);
  const std::vector<Arc> want{{3466, 937, 1}, {3466, 5233, 1}, {0, 9223372036854775807, 1}};
  EXPECT_EQ(r.arcs, want);
  EXPECT_EQ(r.records, 3);
  EXPECT_EQ(r.lines, 7);
  expect_split_invariant(kEL, file, "CA-GrQc.txt");
}

TEST(EdgeList, KonectPercentHeaderComments) {
  const std::string file = "% sym unweighted\n% 78 34 34\n1 2\n1 3\n2 3\n1 4\n";
  const auto r = load(kEL, file, "out.ucidata-zachary");
  EXPECT_EQ(r.header.weight_column, 0);
  const std::vector<Arc> want{{1, 2, 1}, {1, 3, 1}, {2, 3, 1}, {1, 4, 1}};
  EXPECT_EQ(r.arcs, want);
  expect_split_invariant(kEL, file, "out.ucidata-zachary");
}

TEST(EdgeList, CoraCitesTabSeparatedWithoutFinalNewline) {
  const std::string file = "35\t1033\n35\t103482\n35\t103515\n1033\t35";
  const auto r = load(kEL, file, "cora.cites");
  const std::vector<Arc> want{{35, 1033, 1}, {35, 103482, 1}, {35, 103515, 1}, {1033, 35, 1}};
  EXPECT_EQ(r.arcs, want);
  EXPECT_EQ(r.lines, 4);
  expect_split_invariant(kEL, file, "cora.cites");
}

TEST(EdgeList, CsvColumnNameHeaderNamesTheWeight) {
  const std::string file =
      "u,v,key,length_m,weight\n"
      "312,313,0,542.7,0.5\n"
      "313,312,0,542.7,0.5\n"
      "313,400,1,1210.25,2.25\n";
  const auto r = load(kEL, file, "pems_edges.csv");
  EXPECT_EQ(r.header.skipped_header_line, 1);
  EXPECT_EQ(r.header.data_first_line, 2);
  EXPECT_EQ(r.header.data_offset, 24);
  EXPECT_EQ(r.header.weight_column, 5);
  EXPECT_TRUE(r.header.has_weights);
  const std::vector<Arc> want{{312, 313, 0.5}, {313, 312, 0.5}, {313, 400, 2.25}};
  EXPECT_EQ(r.arcs, want);
  EXPECT_EQ(r.records, 3);
  expect_split_invariant(kEL, file, "pems_edges.csv");
  // Forcing another column, or no weights.
  const auto length = load(kEL, file, "pems_edges.csv", {}, {.weight_column = 4});
  EXPECT_EQ(length.arcs[2].w, 1210.25);
  const auto unweighted = load(kEL, file, "pems_edges.csv", {}, {.weight_column = -1});
  EXPECT_FALSE(unweighted.header.has_weights);
  EXPECT_EQ(unweighted.arcs[2].w, 1.0);
  // A data line lacking the weight column is an error naming its line.
  expect_error(kEL, file + "7,8,0\n", "pems_edges.csv", 5, "too few columns: the weight is column 5");
}

TEST(EdgeList, HeaderAfterCommentsAndOtherWeightNames) {
  const std::string file = "# exported\n\"src\"\t\"dst\"\t\"W\"\n1\t2\t3.5\n";
  const auto r = load(kEL, file, "w.tsv");
  EXPECT_EQ(r.header.skipped_header_line, 2);
  EXPECT_EQ(r.header.data_first_line, 3);
  EXPECT_EQ(r.header.weight_column, 3);
  EXPECT_EQ(r.arcs, (std::vector<Arc>{{1, 2, 3.5}}));
  const auto value = load(kEL, "a b c value\n1 2 9 4\n", "v.txt");
  EXPECT_EQ(value.header.weight_column, 4);
  EXPECT_EQ(value.arcs, (std::vector<Arc>{{1, 2, 4}}));
  // A header that names no weight column: the default rule (column 3 when data has 3 columns).
  const auto plain = load(kEL, "source target\n1 2\n", "p.txt");
  EXPECT_EQ(plain.header.skipped_header_line, 1);
  EXPECT_FALSE(plain.header.has_weights);
}

TEST(EdgeList, DefaultWeightIsColumnThreeAndMixedSeparators) {
  const std::string file = "1 2 0.5\n2, 3 ,2e1\n3\t4\t7 extra columns\n";
  const auto r = load(kEL, file, "w.txt");
  EXPECT_EQ(r.header.weight_column, 3);
  EXPECT_EQ(r.arcs, (std::vector<Arc>{{1, 2, 0.5}, {2, 3, 20}, {3, 4, 7}}));
  expect_split_invariant(kEL, file, "w.txt");
  // -1 ignores the column whatever it holds.
  const auto r2 = load(kEL, "1 2 -5\n2 3 nan\n", "w.txt", {}, {.weight_column = -1});
  EXPECT_EQ(r2.arcs, (std::vector<Arc>{{1, 2, 1}, {2, 3, 1}}));
}

TEST(EdgeList, SelfLoopsDroppedOrKept) {
  const std::string file = "1 1\n1 2\n2 2\n";
  const auto dropped = load(kEL, file, "s.txt");
  EXPECT_EQ(dropped.arcs, (std::vector<Arc>{{1, 2, 1}}));
  EXPECT_EQ(dropped.self_loops_dropped, 2);
  EXPECT_EQ(dropped.records, 3);
  const auto kept = load(kEL, file, "s.txt", {}, {.keep_self_loops = true});
  EXPECT_EQ(kept.arcs, (std::vector<Arc>{{1, 1, 1}, {1, 2, 1}, {2, 2, 1}}));
  EXPECT_EQ(kept.self_loops_dropped, 0);
  expect_split_invariant(kEL, file, "s.txt");
  expect_split_invariant(kEL, file, "s.txt", {.keep_self_loops = true});
}

TEST(EdgeList, CrlfAndByteOrderMarkAndIndentedComments) {
  const std::string file = "\xEF\xBB\xBF" "1 2\r\n  # indented comment\r\n\t% another\r\n2 3\r\n";
  const auto r = load(kEL, file, "crlf.txt");
  EXPECT_EQ(r.header.data_offset, 3);
  EXPECT_EQ(r.arcs, (std::vector<Arc>{{1, 2, 1}, {2, 3, 1}}));
  expect_split_invariant(kEL, file, "crlf.txt");
  const auto csv = load(kEL, "\xEF\xBB\xBFu,v,weight\r\n1,2,3\r\n", "bom.csv");
  EXPECT_EQ(csv.header.skipped_header_line, 1);
  EXPECT_EQ(csv.arcs, (std::vector<Arc>{{1, 2, 3}}));
}

TEST(EdgeList, MalformedLinesNameFileAndLine) {
  const std::string head = "% sym unweighted\n1 2\n";  // data lines start at line 3
  expect_error(kEL, head + "-3 4\n", "g.txt", 3, "node id -3 is negative");
  expect_error(kEL, head + "1 99999999999999999999\n", "g.txt", 3,
               "node id '99999999999999999999' does not fit in a 64-bit signed integer");
  expect_error(kEL, head + "12abc 4\n", "g.txt", 3, "node id '12abc' is not an integer (read with graph.ids integer");
  expect_error(kEL, head + "1.5 4\n", "g.txt", 3, "node id '1.5' is not an integer");
  expect_error(kEL, head + "5\n", "g.txt", 3, "too few columns: expected 'u v [weight]'");
  expect_error(kEL, head + "from to\n", "g.txt", 3, "node id 'from' is not an integer (read with graph.ids integer");
  expect_error(kEL, head + "1,,2\n", "g.csv", 3, "empty node id");
  expect_error(kEL, head + "1 x\n", "g.txt", 3, "(got '1 x')");
}

TEST(EdgeList, BadWeightsAreRejectedWithTheReason) {
  const std::string head = "u v w\n1 2 1\n";
  expect_error(kEL, head + "2 3 nan\n", "w.txt", 3, "weight 'nan' in column 3 is NaN; weights must be finite and > 0");
  expect_error(kEL, head + "2 3 inf\n", "w.txt", 3, "weight 'inf' in column 3 is infinite");
  expect_error(kEL, head + "2 3 0\n", "w.txt", 3, "weight '0' in column 3 is zero");
  expect_error(kEL, head + "2 3 -1.5\n", "w.txt", 3, "weight '-1.5' in column 3 is negative");
  expect_error(kEL, head + "2 3 heavy\n", "w.txt", 3, "weight 'heavy' in column 3 is not a number");
  expect_error(kEL, head + "2 3 1.5kg\n", "w.txt", 3, "is not a number: trailing 'kg'");
  expect_error(kEL, head + "2 3 1e999\n", "w.txt", 3, "out of the range of a double");
  expect_error(kEL, "1 2\n", "w.txt", 1, "too few columns: the weight is column 4 but the line has 2",
               {.weight_column = 4});
}

TEST(EdgeList, ErrorLineNumbersDoNotDependOnTheSplit) {
  // The bad line (7) lands in the second or third chunk for most splits; the message must not change.
  const std::string file = "u,v,weight\n# c\n1,2,1\n2,3,1\n\n3,4,1\n4,5x,1\n5,6,1\n";
  expect_error(kEL, file, "split.csv", 7, "node id '5x' is not an integer");
  expect_split_invariant(kEL, file, "split.csv");
  EXPECT_THAT(test::load_error(kEL, file, "split.csv", {17, 23}), HasSubstr("split.csv:7: "));
}

// Weights are decided by the first edge line; a later line with a column the file was not read with would
// lose that column silently, so it is an error naming the line and what to give instead.
TEST(EdgeList, ColumnsBeyondAnUnweightedFirstLineAreErrors) {
  expect_error(kEL, "# c\n1 2\n2 3 5\n", "g.txt", 3, "first edge line (line 2) has 2");
  expect_error(kEL, "1 2\n2 3 1.0abc\n", "g.txt", 2, "graph.weight_column 3");
  expect_split_invariant(kEL, "1 2\n2 3\n3 4\n", "g.txt");
  // Told to ignore extra columns, or to read column 3, the same file loads.
  const std::string file = "1 2\n2 3 5\n";
  EXPECT_EQ(load(kEL, file, "g.txt", {}, {.weight_column = -1}).arcs, (std::vector<Arc>{{1, 2, 1}, {2, 3, 1}}));
  expect_error(kEL, file, "g.txt", 1, "too few columns: the weight is column 3", {.weight_column = 3});
}

// A first line longer than the 1 MiB head is refused by the loader (the unit helper passes the whole text as the
// head): tested end to end in tests/e2e/test_bad_input_hostile.py.

// Inputs that were once misread without a word: CR (old Mac) line endings joined every line into one, and a
// decimal comma in a blank-separated file split the weight ("1,5" read as 1).
TEST(EdgeList, CrLineEndingsAndDecimalCommasAreRefused) {
  expect_error(kEL, "0 1\r1 2\r2 0\r", "mac.txt", 1, "a carriage return (CR) inside the line");
  expect_error(kEL, "0 1\r1 2\r2 0\r", "mac.txt", 1, "tr '\\r' '\\n'");
  expect_error(kEL, "# c\n0 1\n1 2\r2 0\n", "stray.txt", 3, "carriage return");
  expect_error(kEL, "0\t1\t2\n1\t2\t1,5\n", "w.tsv", 2, "weight '1,5' in column 3 has a decimal comma");
  expect_error(kEL, "0 1 0,5\n", "w.txt", 1, "decimal comma");
  // CSV commas, CRLF and CR CR LF line ends still read as before.
  EXPECT_EQ(load(kEL, "0,1,5\n1,2,1\n", "w.csv").arcs, (std::vector<Arc>{{0, 1, 5}, {1, 2, 1}}));
  EXPECT_EQ(load(kEL, "0, 1, 5\r\n1, 2, 1\r\r\n", "w.csv").arcs, (std::vector<Arc>{{0, 1, 5}, {1, 2, 1}}));
  expect_split_invariant(kEL, "0\t1\t2\n1\t2\t3\n2\t3\t1,5\n", "w.tsv");
}

// A chunk beyond the format head (the head check cannot see it) refuses a CR the same way, after any error on
// an earlier line, so the first error does not depend on where the file is split.
TEST(EdgeList, CrInsideAChunkIsRefusedInLineOrder) {
  const FileHeader header = parse_header(kEL, "0 1\n", "big.txt");
  ChunkContext context;
  context.file_name = "big.txt";
  context.first_line = 10;
  const auto error = [&](std::string_view chunk) {
    try {
      parse_chunk(kEL, header, chunk, context);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_THAT(error("1 2\n2 3\n3 4\r4 5\n"), HasSubstr("big.txt:12: a carriage return"));
  EXPECT_THAT(error("1 2\nx 3\n3 4\r4 5\n"), HasSubstr("big.txt:11: node id 'x'"));
  EXPECT_EQ(error("1 2\r\n2 3\r\n"), "");
}
