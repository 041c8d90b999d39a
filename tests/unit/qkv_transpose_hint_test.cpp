// The hint a Q/K/V shape error adds when a dataset has the nodes along its last axis instead of its first.
#include <gtest/gtest.h>

#include "graphrf/attention/qkv.hpp"

using namespace graphrf;

TEST(QkvTransposeHint, SuggestsTheTransposeOnlyWhenTheLastAxisIsTheNodeCount) {
  EXPECT_EQ(qkv_transpose_hint("/v", {8, 16}, 16),
            "; /v (8 x 16) looks transposed: the graph has 16 nodes, so store it as 16 x 8 (one row per node)");
  EXPECT_EQ(qkv_transpose_hint("/q", {8, 2, 16}, 16),
            "; /q (8 x 2 x 16) looks transposed: the graph has 16 nodes, so store it as 16 x 2 x 8 (one row per node)");
  EXPECT_EQ(qkv_transpose_hint("/v", {16, 8}, 16), "");  // already one row per node
  EXPECT_EQ(qkv_transpose_hint("/v", {16, 16}, 16), "");  // square: nothing to tell
  EXPECT_EQ(qkv_transpose_hint("/v", {8, 12}, 16), "");   // neither axis is the node count
  EXPECT_EQ(qkv_transpose_hint("/v", {16}, 16), "");
}
