// Format names, detection, line counting, option checks and error-message shape shared by all formats.
#include "graphrf/io/graph_formats.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "graphrf/core/error.hpp"
#include "unit/format_test_util.hpp"

using namespace graphrf;
using ::testing::HasSubstr;

TEST(GraphFormatNames, RoundTripAndAliases) {
  for (GraphFormat f : {GraphFormat::edge_list, GraphFormat::matrix_market, GraphFormat::metis, GraphFormat::dimacs,
                        GraphFormat::obj}) {
    EXPECT_EQ(parse_format_name(format_name(f)), f);
  }
  EXPECT_STREQ(format_name(GraphFormat::edge_list), "edgelist");
  EXPECT_STREQ(format_name(GraphFormat::matrix_market), "mtx");
  EXPECT_STREQ(format_name(GraphFormat::metis), "metis");
  EXPECT_STREQ(format_name(GraphFormat::dimacs), "dimacs");
  EXPECT_STREQ(format_name(GraphFormat::obj), "obj");
  for (const char* alias : {"edge-list", "snap", "tsv", "csv", "EdgeList"}) {
    EXPECT_EQ(parse_format_name(alias), GraphFormat::edge_list) << alias;
  }
  EXPECT_EQ(parse_format_name("mm"), GraphFormat::matrix_market);
  EXPECT_EQ(parse_format_name("MTX"), GraphFormat::matrix_market);
  EXPECT_EQ(parse_format_name("graph"), GraphFormat::metis);
  EXPECT_EQ(parse_format_name("gr"), GraphFormat::dimacs);
}

TEST(GraphFormatNames, UnknownNameIsAnInputError) {
  try {
    parse_format_name("xml");
    FAIL() << "no exception";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "graph.format: unknown format 'xml' (expected auto, edgelist, mtx, metis, dimacs, obj, gml, hdf5, ply, off, stl)");
  }
  EXPECT_THROW(parse_format_name(""), InputError);
  // "auto" is the caller's business (detect_format), not a format.
  EXPECT_THROW(parse_format_name("auto"), std::invalid_argument);
}

TEST(DetectFormat, HeaderWinsOverExtension) {
  const auto mtx = detect_format("data/web.txt", "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 1\n1 2\n");
  EXPECT_EQ(mtx.format, GraphFormat::matrix_market);
  EXPECT_EQ(mtx.reason, "header '%%MatrixMarket'");
  const auto gr = detect_format("roads.graph", "c 9th DIMACS challenge\nc\n\np sp 264346 733846\na 1 2 803\n");
  EXPECT_EQ(gr.format, GraphFormat::dimacs);
  EXPECT_EQ(gr.reason, "header 'p sp'");
  EXPECT_EQ(detect_format("x", "p max 4 5\na 1 2 3\n").format, GraphFormat::dimacs);
  EXPECT_EQ(detect_format("x", "\xEF\xBB\xBF%%MatrixMarket matrix coordinate real general\n").format,
            GraphFormat::matrix_market);
}

TEST(DetectFormat, ByExtension) {
  struct Case {
    const char* path;
    GraphFormat format;
    const char* reason;
  };
  const Case cases[] = {
      {"a/b.mtx", GraphFormat::matrix_market, "extension .mtx"},
      {"B.MM", GraphFormat::matrix_market, "extension .mm"},
      {"mesh.graph", GraphFormat::metis, "extension .graph"},
      {"x.metis", GraphFormat::metis, "extension .metis"},
      {"USA-road-d.NY.gr", GraphFormat::dimacs, "extension .gr"},
      {"y.dimacs", GraphFormat::dimacs, "extension .dimacs"},
      {"bunny.obj", GraphFormat::obj, "extension .obj"},
      {"ca-GrQc.txt", GraphFormat::edge_list, "extension .txt"},
      {"e.tsv", GraphFormat::edge_list, "extension .tsv"},
      {"pems_edges.csv", GraphFormat::edge_list, "extension .csv"},
      {"g.edges", GraphFormat::edge_list, "extension .edges"},
      {"g.el", GraphFormat::edge_list, "extension .el"},
      {"cora.cites", GraphFormat::edge_list, "extension .cites"},
      {"g.edgelist", GraphFormat::edge_list, "extension .edgelist"},
      {"konect/out.ucidata-zachary", GraphFormat::edge_list, "default (extension .ucidata-zachary not recognised)"},
      {"dir.v2/edges", GraphFormat::edge_list, "default (no file extension)"},
  };
  for (const Case& c : cases) {
    const auto choice = detect_format(c.path, "1 2\n2 3\n");
    EXPECT_EQ(choice.format, c.format) << c.path;
    EXPECT_EQ(choice.reason, c.reason) << c.path;
  }
}

TEST(DetectFormat, ObjByContentAndNeverMetisWithoutExtension) {
  const auto obj = detect_format("mesh.dat", "# blender\no Cube\nv 1 1 1\nv 0 0 0\nv 1 0 0\nf 1 2 3\n");
  EXPECT_EQ(obj.format, GraphFormat::obj);
  EXPECT_EQ(obj.reason, "lines starting with 'v ' and 'f '");
  EXPECT_EQ(detect_format("mesh.dat", "v 1 1 1\nv 2 2 2\n").format, GraphFormat::edge_list);  // no faces
  // A METIS-looking file without .graph/.metis is read as an edge list.
  EXPECT_EQ(detect_format("g.txt", "% metis\n3 2\n2\n1 3\n2\n").format, GraphFormat::edge_list);
  // A CSV header starting with 'c' is not a DIMACS comment once a non-'p' line follows.
  EXPECT_EQ(detect_format("c.csv", "cited,citing\n1,2\n").format, GraphFormat::edge_list);
}

TEST(DetectFormat, CompressedInputIsRejected) {
  const std::string gzip("\x1F\x8B\x08\x00\x00\x00", 6);
  try {
    detect_format("g.txt.gz", gzip);
    FAIL() << "no exception";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("g.txt.gz: the file is gzip-compressed"));
  }
  EXPECT_THROW(parse_header(GraphFormat::edge_list, gzip, "g.txt.gz"), InputError);
  EXPECT_THROW(detect_format("g.bz2", "BZh91AY&SY"), InputError);
  EXPECT_EQ(detect_format("BZh.txt", "BZhx 1\n").format, GraphFormat::edge_list);  // not bzip2 magic
}

TEST(CountLines, LastLineWithoutNewline) {
  EXPECT_EQ(count_lines(""), 0);
  EXPECT_EQ(count_lines("a"), 1);
  EXPECT_EQ(count_lines("a\n"), 1);
  EXPECT_EQ(count_lines("a\nb"), 2);
  EXPECT_EQ(count_lines("\n\n"), 2);
  EXPECT_EQ(count_lines("a\r\nb\r\n"), 2);
}

TEST(ParseHeader, WeightColumnOptionChecks) {
  EXPECT_THROW(parse_header(GraphFormat::edge_list, "1 2 3\n", "g.txt", -2), InputError);
  EXPECT_THROW(parse_header(GraphFormat::edge_list, "1 2 3\n", "g.txt", 1), InputError);
  EXPECT_THROW(parse_header(GraphFormat::edge_list, "1 2 3\n", "g.txt", 2), InputError);
  try {
    parse_header(GraphFormat::matrix_market, "%%MatrixMarket matrix coordinate real general\n2 2 1\n", "m.mtx", 3);
    FAIL() << "no exception";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("applies only to edge lists"));
    EXPECT_THAT(e.what(), HasSubstr("m.mtx"));
  }
}

TEST(ParseHeader, CutLastLineOfAFullHeadIsNotUsed) {
  // A head of kFormatHeadBytes whose last line has no '\n' may have been cut: the size line is not trusted.
  std::string head = "%%MatrixMarket matrix coordinate real general\n";
  while (head.size() + 2 < static_cast<std::size_t>(kFormatHeadBytes) - 10) head += "%\n";
  head += "1000 1000 5";
  head.resize(static_cast<std::size_t>(kFormatHeadBytes), '0');
  try {
    parse_header(GraphFormat::matrix_market, head, "big.mtx");
    FAIL() << "no exception";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "big.mtx: no MatrixMarket size line in the first 1 MiB (expected 'rows cols nnz' after the banner)");
  }
  // The same line in a short head is the whole file: complete.
  const auto h = parse_header(GraphFormat::matrix_market, "%%MatrixMarket matrix coordinate real general\n4 4 5",
                              "small.mtx");
  EXPECT_EQ(h.declared_nodes, 4);
  EXPECT_EQ(h.declared_entries, 5);
}

TEST(FormatErrors, LongLinesAreCutAndControlsEscaped) {
  const std::string file = "1 2\n" + std::string(100, '7') + "x\t9\n";
  const std::string message = test::load_error(GraphFormat::edge_list, file, "long.txt");
  EXPECT_THAT(message, HasSubstr("long.txt:2: node id '"));
  const std::string got = message.substr(message.find("(got '"));
  EXPECT_EQ(got, "(got '" + std::string(57, '7') + "...')");
  const std::string tabbed = test::load_error(GraphFormat::edge_list, "1\tx2\n", "tab.tsv");
  EXPECT_THAT(tabbed, HasSubstr("(got '1\\tx2')"));
}

TEST(DetectFormat, MeshesAndHdf5ByContentOrExtension) {
  const std::string hdf5("\x89HDF\r\n\x1a\n\0\0\0", 11);
  EXPECT_EQ(detect_format("g.txt", hdf5).format, GraphFormat::hdf5);  // the signature wins over the extension
  EXPECT_EQ(detect_format("g.txt", hdf5).reason, "HDF5 signature");
  EXPECT_EQ(detect_format("g.hdf5", "").format, GraphFormat::hdf5);
  EXPECT_EQ(detect_format("bunny", "ply\nformat ascii 1.0\n").format, GraphFormat::ply);
  EXPECT_EQ(detect_format("bunny", "ply\r\nformat ascii 1.0\r\n").format, GraphFormat::ply);
  EXPECT_EQ(detect_format("m", "OFF\n8 6 12\n").format, GraphFormat::off);
  EXPECT_EQ(detect_format("m", "COFF 8 6 12\n").format, GraphFormat::off);
  EXPECT_EQ(detect_format("m", "OFFICE 1 2\n").format, GraphFormat::edge_list);
  EXPECT_EQ(detect_format("m", "solid x\n facet normal 0 0 1\n").format, GraphFormat::stl);
  EXPECT_EQ(detect_format("m.stl", "anything").format, GraphFormat::stl);
  EXPECT_EQ(detect_format("m.PLY", "").reason, "extension .ply");
  EXPECT_EQ(detect_format("m.off", "").format, GraphFormat::off);
}

TEST(FormatHint, NamesTheFormatTheFileLooksLike) {
  EXPECT_EQ(format_hint("e.txt", "1 2\n2 3\n", GraphFormat::metis),
            "; it looks like an edge list (extension .txt): try graph.format edgelist");
  EXPECT_EQ(format_hint("edges", "1 2\n2 3 0.5\n3 4\n", GraphFormat::metis),
            "; it looks like an edge list (two or three numbers a line): try graph.format edgelist");
  EXPECT_EQ(format_hint("g.mtx", "%%MatrixMarket matrix coordinate real general\n", GraphFormat::edge_list),
            "; it looks like mtx (header '%%MatrixMarket'): try graph.format mtx");
  EXPECT_EQ(format_hint("e.txt", "1 2\n", GraphFormat::edge_list), "");       // what it looks like
  EXPECT_EQ(format_hint("x", "a b c d e\n", GraphFormat::metis), "");         // nothing better to say
}
