// Wavefront OBJ meshes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "graphrf/io/graph_formats.hpp"
#include "unit/format_test_util.hpp"

using namespace graphrf;
using graphrf::test::expect_error;
using graphrf::test::expect_split_invariant;
using graphrf::test::load;

namespace {
constexpr GraphFormat kObj = GraphFormat::obj;

const std::string kMesh =
    "# Blender v2.93 OBJ File\n"
    "mtllib quad.mtl\n"
    "o Thing\n"
    "v 0 0 0\n"
    "v 1 0 0\n"
    "v 1 1 0\n"
    "v 0 1 0\n"
    "vt 0 0\n"
    "vn 0 0 1\n"
    "vp 0.5\n"
    "g group1\n"
    "usemtl Material\n"
    "s off\n"
    "f 1/1/1 2/1/1 3/1/1\n"
    "f 1//1 3//1 4//1\n"
    "v 0 0 1\n"
    "f -5/1 -4 -3/1/1 -1\n"
    "l 1 5 4\n"
    "\n"
    "f 1 1 2\n";
}  // namespace

TEST(Obj, FacesWithSlashTokensNegativeIndicesQuadsAndPolylines) {
  const auto r = load(kObj, kMesh, "quad.obj");
  EXPECT_EQ(r.header.data_offset, 0);
  EXPECT_EQ(r.header.declared_nodes, 5);  // set by the loader simulation from count_records
  EXPECT_EQ(r.records, 5);
  const std::vector<Arc> want{
      {1, 2, 1}, {2, 3, 1}, {3, 1, 1},             // f 1/1/1 2/1/1 3/1/1
      {1, 3, 1}, {3, 4, 1}, {4, 1, 1},             // f 1//1 3//1 4//1
      {1, 2, 1}, {2, 3, 1}, {3, 5, 1}, {5, 1, 1},  // f -5 -4 -3 -1 after 5 vertices: quad 1 2 3 5
      {1, 5, 1}, {5, 4, 1},                        // l 1 5 4
      {1, 2, 1}, {2, 1, 1},                        // f 1 1 2: the 1->1 self-loop is dropped
  };
  EXPECT_EQ(r.arcs, want);
  EXPECT_EQ(r.self_loops_dropped, 1);
  expect_split_invariant(kObj, kMesh, "quad.obj");
}

TEST(Obj, NegativeIndicesAcrossChunksUseRecordsBefore) {
  // Vertex 5 is defined after line 15; "-1" on line 17 must mean vertex 5 whatever chunk it lands in.
  const std::vector<std::size_t> cuts{kMesh.find("v 0 0 1"), kMesh.find("f -5")};
  EXPECT_EQ(load(kObj, kMesh, "quad.obj", cuts).arcs, load(kObj, kMesh, "quad.obj").arcs);
}

TEST(Obj, MalformedFaces) {
  const std::string head = "v 0 0 0\nv 1 0 0\nv 1 1 0\n";  // faces start at line 4
  expect_error(kObj, head + "f 1 2 9\n", "m.obj", 4, "vertex index 9 out of range 1..3");
  expect_error(kObj, head + "f 0 1 2\n", "m.obj", 4, "vertex index 0 out of range 1..3");
  expect_error(kObj, head + "f -4 1 2\n", "m.obj", 4, "relative vertex index -4 refers before the first vertex");
  expect_error(kObj, head + "f 1 2\n", "m.obj", 4, "an OBJ face needs at least 3 vertices");
  expect_error(kObj, head + "l 1\n", "m.obj", 4, "an OBJ polyline needs at least 2 vertices");
  expect_error(kObj, head + "f 1 2 3abc\n", "m.obj", 4, "vertex index '3abc' is not an integer: trailing 'abc'");
  expect_error(kObj, head + "f 1 /2 3\n", "m.obj", 4, "empty vertex index");
  expect_error(kObj, head + "fx 1 2 3\n", "m.obj", 4, "unknown OBJ statement 'fx'");
  const std::string bad = head + "f 1 2 3\nv 2 2 2\nf 1 2 -1\n# c\nf 1 2 7\n";
  expect_error(kObj, bad, "m.obj", 8, "vertex index 7 out of range 1..4");
  expect_split_invariant(kObj, bad, "m.obj");
}

TEST(Obj, LoaderMustSetDeclaredNodes) {
  const FileHeader header = parse_header(kObj, kMesh, "quad.obj");
  EXPECT_EQ(header.declared_nodes, -1);
  EXPECT_THROW(parse_chunk(kObj, header, kMesh, ChunkContext{"quad.obj", 1, 0, false}), std::invalid_argument);
}

TEST(Obj, MalformedVertexReferencesAreRefused) {
  const std::string head = "v 0 0 0\nv 1 0 0\nv 0 1 0\n";
  expect_error(kObj, head + "f 1/ 2 3\n", "m.obj", 4, "vertex reference '1/' is malformed");
  expect_error(kObj, head + "f 1 2/x 3\n", "m.obj", 4, "vertex reference '2/x' is malformed");
  expect_error(kObj, head + "f 1 2 3/1/\n", "m.obj", 4, "vertex reference '3/1/' is malformed");
  expect_error(kObj, head + "f 1 2 3//\n", "m.obj", 4, "vertex reference '3//' is malformed");
  expect_error(kObj, head + "l 1 2x\n", "m.obj", 4, "vertex index '2x' is not an integer");
  EXPECT_EQ(load(kObj, head + "f 1/1 2/1/1 3//1\n", "ok.obj").arcs.size(), 3u);
}
