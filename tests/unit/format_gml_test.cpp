// GML (Newman's collections, networkx.write_gml): blocks, weights, isolated nodes, `directed`, and the
// parallel rule that a file split at any line boundaries parses to the same nodes and arcs (or the same
// first error) as the whole.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "graphrf/core/error.hpp"
#include "graphrf/io/gml_format.hpp"
#include "fuzz/gml_split_load.hpp"
#include "unit/format_test_util.hpp"

using namespace graphrf;
using ::testing::HasSubstr;

namespace {

using test::GmlLoaded;

GmlLoaded load_gml(const std::string& file, const std::vector<std::size_t>& cuts = {}, int weight_column = 0) {
  return test::load_gml_split(file, cuts, "net.gml", weight_column);
}

std::string gml_error(const std::string& file, const std::vector<std::size_t>& cuts = {}) {
  try {
    load_gml(file, cuts);
  } catch (const InputError& e) {
    return e.what();
  }
  return {};
}

// Every split into 2 and 3 line-aligned chunks gives what the whole gives.
void expect_gml_split_invariant(const std::string& file) {
  const std::string whole_error = gml_error(file);
  const GmlLoaded whole = whole_error.empty() ? load_gml(file) : GmlLoaded{};
  const auto bounds = test::line_boundaries(file);
  for (std::size_t i = 0; i < bounds.size(); ++i)
    for (std::size_t j = i; j < bounds.size(); ++j) {
      const std::vector<std::size_t> cuts{bounds[i], bounds[j]};
      SCOPED_TRACE("cuts " + std::to_string(bounds[i]) + " " + std::to_string(bounds[j]));
      if (!whole_error.empty()) {
        EXPECT_EQ(gml_error(file, cuts), whole_error);
        continue;
      }
      const GmlLoaded split = load_gml(file, cuts);
      EXPECT_EQ(split.arcs, whole.arcs);
      EXPECT_EQ(split.node_ids, whole.node_ids);
      EXPECT_EQ(split.labels, whole.labels);
      EXPECT_EQ(split.directed, whole.directed);
    }
}

// Newman's layout (karate.gml, lesmis.gml): a Creator line, one key per line, `value` weights.
const std::string kNewman =
    "Creator \"Mark Newman on Fri Jul 21 12:44:53 2006\"\n"
    "graph\n"
    "[\n"
    "  directed 0\n"
    "  node\n"
    "  [\n"
    "    id 0\n"
    "    label \"Myriel\"\n"
    "  ]\n"
    "  node\n"
    "  [\n"
    "    id 1\n"
    "    label \"Napoleon\"\n"
    "  ]\n"
    "  node [ id 7 label \"Alone [not linked]\" ]\n"
    "  edge\n"
    "  [\n"
    "    source 1\n"
    "    target 0\n"
    "    value 2.5\n"
    "  ]\n"
    "]\n";

}  // namespace

TEST(Gml, DetectedByExtensionAndByItsFirstKey) {
  EXPECT_EQ(detect_format("lesmis.gml", kNewman).format, GraphFormat::gml);
  EXPECT_EQ(detect_format("lesmis.txt", kNewman).format, GraphFormat::gml);
  EXPECT_EQ(detect_format("x", "# c\ngraph [\n node [ id 1 ]\n]\n").format, GraphFormat::gml);
  EXPECT_EQ(detect_format("x", "1 2\n").format, GraphFormat::edge_list);
  EXPECT_EQ(parse_format_name("GML"), GraphFormat::gml);
}

TEST(Gml, NewmanLayoutGivesNodesWeightsAndIsolatedNodes) {
  const GmlLoaded r = load_gml(kNewman);
  EXPECT_EQ(r.node_ids, (std::vector<std::int64_t>{0, 1, 7}));  // 7 has no edge and is kept
  EXPECT_EQ(r.labels, (std::vector<std::string>{"Myriel", "Napoleon", "Alone [not linked]"}));
  EXPECT_EQ(r.arcs, (std::vector<Arc>{{1, 0, 2.5}}));
  EXPECT_FALSE(r.directed);
  expect_gml_split_invariant(kNewman);
  // --weight-column -1 ignores weights.
  EXPECT_EQ(load_gml(kNewman, {}, -1).arcs, (std::vector<Arc>{{1, 0, 1}}));
}

TEST(Gml, OneLineBlocksNestedBlocksWeightsAndDirected) {
  // networkx-like: `weight` wins over `value`; graphics blocks inside nodes and edges are skipped; several
  // blocks on one line; a self-loop is dropped and counted.
  const std::string file =
      "graph [ directed 1\n"
      "  node [ id 10 graphics [ x 1.0 y 2.0 ] ] node [ id 20 ]\n"
      "  node [ id 30 ]\n"
      "  edge [ source 10 target 20 value 3 weight 4 ] edge [ source 20\n"
      "    target 30 graphics [ width 2 ] ]\n"
      "  edge [ source 30 target 30 ]\n"
      "  edge [ source 30 target 10 value 0.5 ]\n"
      "]\n";
  const GmlLoaded r = load_gml(file);
  EXPECT_EQ(r.node_ids, (std::vector<std::int64_t>{10, 20, 30}));
  EXPECT_EQ(r.labels, (std::vector<std::string>{"", "", ""}));  // no labels: empty names
  EXPECT_EQ(r.arcs, (std::vector<Arc>{{10, 20, 4}, {20, 30, 1}, {30, 10, 0.5}}));
  EXPECT_EQ(r.self_loops_dropped, 1);
  EXPECT_TRUE(r.directed);
  expect_gml_split_invariant(file);
}

TEST(Gml, AnyDirectedOneMakesTheGraphDirected) {
  // A later `directed 0` does not undo an earlier `directed 1`: chunks on different ranks each see one of
  // them and OR their flags (the fuzzer found whole and split reads disagreeing when the last one won).
  const std::string file =
      "graph [\n"
      "  directed 1\n"
      "  node [ id 0 ]\n"
      "  node [ id 1 ]\n"
      "  edge [ source 0 target 1 ]\n"
      "  directed 0\n"
      "]\n";
  EXPECT_TRUE(load_gml(file).directed);
  expect_gml_split_invariant(file);
}

TEST(Gml, MalformedFilesGiveOneErrorNamingTheLine) {
  const auto expect = [](const std::string& file, const std::string& where, const std::string& what) {
    const std::string message = gml_error(file);
    EXPECT_EQ(message.rfind(where, 0), 0u) << message;
    EXPECT_THAT(message, HasSubstr(what));
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    expect_gml_split_invariant(file);
  };
  expect("graph [\n node [ label \"x\" ]\n]\n", "net.gml:2: ", "node block without an id");
  expect("graph [\n node [ id 1 ]\n edge [\n source 1\n ]\n]\n", "net.gml:3: ", "edge block without a source and a target");
  expect("graph [\n node [ id x1 ]\n]\n", "net.gml:2: ", "node id 'x1' is not an integer");
  expect("graph [\n node [ id \"1\" ]\n]\n", "net.gml:2: ", "node id '1' is not an integer");
  expect("graph [\n node [ id 1 ]\n node [ id 2 ]\n edge [ source 1 target 2 value -2 ]\n]\n", "net.gml:4: ",
         "is negative");
  expect("graph [\n node [ id 1 label \"unterminated ]\n]\n", "net.gml:2: ", "a string does not end on its line");
  expect("graph [\n node [ id ]\n]\n", "net.gml:2: ", "key 'id' has no value before ']'");
  expect("graph [\n node [ id 1 ]\n]\n]\n", "net.gml:4: ", "']' closes no block");
  expect("graph [\n node [ id 1 ]\n", "net.gml: ", "the file ends inside 1 open block(s)");
  expect("graph [\n node [ id 1 ]\n edge [ source 1 target 1\n", "net.gml:3: ", "edge block not closed before the end");
  expect("graph [\n 12 [ ]\n]\n", "net.gml:2: ", "value '12' without a key");
  expect("graph [\n node [ id\n 1 ]\n]\n", "net.gml:3: ", "value '1' is not on the line of its key");
  expect("graph [\n node [ id 1 ]\n edge\n", "net.gml: ", "the file ends after a key that has no value");
  expect("graph [\n node [ id 1 label \"a\"\n label \"b\" ]\n]\n", "net.gml:3: ", "node block with a second label");
}

TEST(Gml, LimitsOfTheParallelReaderAreRefusedNamingTheLine) {
  const auto expect = [](const std::string& file, const std::string& where, const std::string& what) {
    const std::string message = gml_error(file);
    EXPECT_EQ(message.rfind(where, 0), 0u) << message;
    EXPECT_THAT(message, HasSubstr(what));
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    expect_gml_split_invariant(file);
  };
  // Two graphs: the second 'graph [' is to blame, however the file is split (also when its '[' is on the
  // next line, Newman's layout, or both graphs share a line).
  expect("graph [\n node [ id 1 ]\n]\ngraph [\n node [ id 2 ]\n]\n", "net.gml:4: ",
         "a second 'graph [' block (the first is on line 1); a file holds one graph");
  expect("Creator \"x\"\ngraph\n[\n node [ id 1 ]\n]\n# next\ngraph\n[\n node [ id 2 ]\n]\n", "net.gml:8: ",
         "a second 'graph [' block (the first is on line 3)");
  expect("graph [ node [ id 1 ] ] graph [ node [ id 2 ] ]\n", "net.gml:1: ", "a second 'graph [' block");
  // A graph block nested in another block is not a second graph (it is ignored like any unknown block).
  EXPECT_EQ(gml_error("graph [\n node [ id 1 meta [ graph [ x 1 ] ] ]\n]\n"), "");
  // A scalar value on a later line than its key, and strings spanning lines.
  expect("graph [\n node [ id\n 1 ]\n]\n", "net.gml:3: ", "value '1' is not on the line of its key (not supported");
  expect("graph [\n node [ id 1 label \"first\nsecond\" ]\n]\n", "net.gml:2: ",
         "strings spanning lines are not supported");
}

// A repeated key used to leave the edge to whichever came last.
TEST(Gml, RepeatedEdgeKeysAreRefused) {
  const auto expect = [](const std::string& file, const std::string& where, const std::string& what) {
    const std::string message = gml_error(file);
    EXPECT_EQ(message.rfind(where, 0), 0u) << message;
    EXPECT_THAT(message, HasSubstr(what));
    expect_gml_split_invariant(file);
  };
  const std::string nodes = "graph [\n node [ id 1 ]\n node [ id 2 ]\n node [ id 3 ]\n";
  expect(nodes + " edge [\n source 1\n source 3\n target 2\n ]\n]\n", "net.gml:7: ", "edge block with a second source");
  expect(nodes + " edge [ source 1 target 2 target 3 ]\n]\n", "net.gml:5: ", "edge block with a second target");
  expect(nodes + " edge [ source 1 target 2\n weight 2\n weight 3 ]\n]\n", "net.gml:7: ", "edge block with a second weight");
  expect(nodes + " edge [ source 1 target 2 value 2 value 3 ]\n]\n", "net.gml:5: ", "edge block with a second value");
  // One weight and one value: the weight wins, as before.
  const GmlLoaded both = load_gml(nodes + " edge [ source 1 target 2 value 2 weight 3 ]\n]\n");
  ASSERT_EQ(both.arcs.size(), 1u);
  EXPECT_EQ(both.arcs[0].w, 3);
}
