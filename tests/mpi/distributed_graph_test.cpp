// The distributed graph against graphs the test builds itself: generated grids and random graphs, edge
// lists with awkward content, every partitioner, ghost exchange, chunked messages, components.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>

#include "graphrf/core/counter_rng.hpp"
#include "graphrf/graph/distributed_graph.hpp"
#include "graphrf/graph/graph_statistics.hpp"
#include "graphrf/io/arc_input.hpp"
#include "mpi_test_support.hpp"

using namespace graphrf;
using graphrf::testing::gather_entries;
using graphrf::testing::SharedTempFile;
using graphrf::testing::Triplet;
using graphrf::testing::world;

namespace {

DistributedGraph load(const std::string& graph, const std::string& partition = "block",
                      DuplicatePolicy duplicates = DuplicatePolicy::max, bool keep_loops = false) {
  GraphOptions o;
  o.graph = graph;
  o.partition = partition;
  o.duplicates = duplicates;
  o.keep_self_loops = keep_loops;
  return load_graph(world(), o);
}

// The grid the test expects: node r*C+c linked to its 4 neighbours, weight 1.
std::vector<Triplet> expected_grid(std::int64_t rows, std::int64_t cols, bool normalized) {
  auto deg = [&](std::int64_t u) {
    const auto r = u / cols, c = u % cols;
    return (r > 0) + (r + 1 < rows) + (c > 0) + (c + 1 < cols);
  };
  std::vector<Triplet> out;
  for (std::int64_t u = 0; u < rows * cols; ++u) {
    const auto r = u / cols, c = u % cols;
    std::vector<std::int64_t> nb;
    if (r > 0) nb.push_back(u - cols);
    if (c > 0) nb.push_back(u - 1);
    if (c + 1 < cols) nb.push_back(u + 1);
    if (r + 1 < rows) nb.push_back(u + cols);
    for (auto v : nb) out.push_back({u, v, normalized ? 1.0 / std::sqrt(double(deg(u)) * deg(v)) : 1.0});
  }
  std::sort(out.begin(), out.end());
  return out;
}

void expect_same_entries(const std::vector<Triplet>& got, const std::vector<Triplet>& want, double tol = 1e-15) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < got.size(); ++k) {
    ASSERT_EQ(got[k].row, want[k].row) << k;
    ASSERT_EQ(got[k].col, want[k].col) << k;
    ASSERT_NEAR(got[k].value, want[k].value, tol) << k;
  }
}

}  // namespace

class GridPartitioners : public ::testing::TestWithParam<std::string> {};

TEST_P(GridPartitioners, GridEqualsIndependentConstruction) {
  const auto g = load("grid:7x5", GetParam());
  EXPECT_EQ(g.n_global(), 35);
  EXPECT_EQ(g.n_edges_global, 7 * 4 + 5 * 6);
  EXPECT_EQ(world().sum(g.n_local()), 35);
  expect_same_entries(gather_entries(g, false), expected_grid(7, 5, false));
  expect_same_entries(gather_entries(g, true), expected_grid(7, 5, true));
  // Owned ranges are contiguous and owner lookup agrees with them.
  for (std::int64_t i = 0; i < g.n_local(); ++i) EXPECT_EQ(g.owner(g.first() + i), world().rank());
  // Rows list neighbours in canonical order (the same for every partition).
  std::vector<std::int64_t> ghost_canon(g.ghosts.size());
  g.ghost_exchange.exchange<std::int64_t>(g.canonical_index, ghost_canon);
  for (std::int64_t i = 0; i < g.n_local(); ++i) {
    std::int64_t prev = -1;
    for (auto k = g.row_ptr[size_t(i)]; k < g.row_ptr[size_t(i) + 1]; ++k) {
      const auto c = g.col[size_t(k)];
      const auto canon = g.owns(c) ? g.canonical_index[size_t(c - g.first())] : ghost_canon[size_t(g.ghost_slot(c))];
      EXPECT_GT(canon, prev);
      prev = canon;
    }
  }
}

TEST_P(GridPartitioners, StatisticsOfTwoGridsAndIsolatedNodes) {
  // Two 3x3 grids (ids 1..9 and 11..19) plus isolated declared nodes 20..22, as Matrix Market.
  std::string mtx = "%%MatrixMarket matrix coordinate pattern symmetric\n22 22 24\n";
  for (int base : {0, 10})
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) {
        const int u = base + r * 3 + c + 1;
        if (c < 2) mtx += std::to_string(u + 1) + " " + std::to_string(u) + "\n";
        if (r < 2) mtx += std::to_string(u + 3) + " " + std::to_string(u) + "\n";
      }
  SharedTempFile file("two-grids.mtx", mtx);
  const auto g = load(file.path(), GetParam());
  const auto s = compute_statistics(g);
  EXPECT_EQ(s.nodes, 22);
  EXPECT_EQ(s.edges, 24);
  EXPECT_EQ(s.isolated, 4);  // node 10 and 20..22
  EXPECT_EQ(s.components, 2 + 4);
  EXPECT_EQ(s.degree.max, 4);
  EXPECT_EQ(s.degree.min, 0);
}

INSTANTIATE_TEST_SUITE_P(Partitioners, GridPartitioners, ::testing::Values("block", "metis", "ptscotch"));

TEST(DistributedGraph, EdgeListWithDuplicatesLoopsReverseArcsAndSparseIds) {
  // Ids are sparse 64-bit values; 5->5 is a self-loop; 7 1000000000000 appears twice (weights 2 and 3),
  // 1000000000000 7 once more with weight 1 (reverse arc), 42 7 once.
  const std::string text =
      "# comment\n% another\n7 1000000000000 2\n5 5 1\n42 7 4\n7 1000000000000 3\n1000000000000 7 1\n5 42 0.5\n";
  SharedTempFile file("sparse.txt", text);
  for (auto policy : {DuplicatePolicy::max, DuplicatePolicy::sum}) {
    const auto g = load(file.path(), "block", policy);
    EXPECT_EQ(g.n_global(), 4);  // 5, 7, 42, 10^12
    EXPECT_EQ(g.n_edges_global, 3);
    EXPECT_EQ(g.report.self_loops_dropped, 1);
    EXPECT_EQ(g.report.duplicate_arcs_merged, 1);
    EXPECT_EQ(g.report.reciprocal_pairs, 1);
    const double w = policy == DuplicatePolicy::max ? 3.0 : 5.0;  // then max with the reverse arc (1)
    const std::vector<Triplet> want = {{5, 42, 0.5}, {7, 42, 4}, {7, 1000000000000, w}, {42, 5, 0.5}, {42, 7, 4},
                                       {1000000000000, 7, w}};
    expect_same_entries(gather_entries(g, false), want);
  }
  const auto kept = load(file.path(), "block", DuplicatePolicy::max, true);
  EXPECT_EQ(kept.n_edges_global, 4);
  EXPECT_EQ(kept.report.self_loops_kept, 1);
  try {
    load(file.path(), "block", DuplicatePolicy::error);
    FAIL() << "duplicates accepted";
  } catch (const InputError& e) {
    EXPECT_TRUE(e.collective());
    EXPECT_NE(std::string(e.what()).find("duplicate edge 7 -> 1000000000000"), std::string::npos) << e.what();
  }
}

TEST(DistributedGraph, MalformedLineReportedWithItsLineOnEveryRank) {
  std::string text;
  for (int i = 0; i < 200; ++i) text += std::to_string(i) + " " + std::to_string(i + 1) + "\n";
  text += "17\n";  // one column: malformed whatever --ids says
  SharedTempFile file("bad.txt", text);
  try {
    load(file.path());
    FAIL() << "malformed file accepted";
  } catch (const InputError& e) {
    EXPECT_TRUE(e.collective());
    EXPECT_NE(std::string(e.what()).find(file.path() + ":201:"), std::string::npos) << e.what();
  }
}

TEST(DistributedGraph, MissingFileIsOneCollectiveError) {
  try {
    load("/nonexistent/graph.txt");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_TRUE(e.collective());
    EXPECT_NE(std::string(e.what()).find("/nonexistent/graph.txt: cannot open"), std::string::npos) << e.what();
  }
}

TEST(DistributedGraph, RandomGraphIdenticalForAnyPartitionAndChunkedMessages) {
  const auto block = gather_entries(load("random:300:6:9"), false);
  // Mean degree close to 6: each node draws 3 partners; repeats are rare (about 3*300*3/300 / 2).
  EXPECT_NEAR(double(block.size()) / 300.0, 6.0, 0.3);
  // Symmetric: (u, v) present iff (v, u) present.
  std::set<std::pair<std::int64_t, std::int64_t>> s;
  for (const auto& t : block) s.insert({t.row, t.col});
  for (const auto& t : block) EXPECT_TRUE(s.count({t.col, t.row}));
  expect_same_entries(gather_entries(load("random:300:6:9", "metis"), false), block);
  // Force every MPI message through the chunked point-to-point path.
  const auto saved = Communicator::max_message_bytes();
  Communicator::set_max_message_bytes(40);
  const auto chunked = gather_entries(load("random:300:6:9", "ptscotch"), false);
  Communicator::set_max_message_bytes(saved);
  expect_same_entries(chunked, block);
}

TEST(DistributedGraph, PartitionFileIsFollowed) {
  const int p = world().size();
  // Node i of a 6x6 grid goes to part (i * 7) % p: scattered, not contiguous.
  std::string parts = "# parts\n";
  for (int i = 0; i < 36; ++i) parts += std::to_string((i * 7) % p) + "\n";
  SharedTempFile file("grid.part", parts);
  const auto g = load("grid:6x6", "file:" + file.path());
  for (std::int64_t i = 0; i < g.n_local(); ++i) EXPECT_EQ((g.original_id[size_t(i)] * 7) % p, world().rank());
  expect_same_entries(gather_entries(g, true), expected_grid(6, 6, true));

  SharedTempFile short_file("short.part", "0\n0\n");
  try {
    load("grid:6x6", "file:" + short_file.path());
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("has 2 part ids but the graph has 36 nodes"), std::string::npos) << e.what();
  }
  std::string bad = parts;
  bad.replace(bad.rfind('\n', bad.size() - 2) + 1, std::string::npos, std::to_string(p) + "\n");
  SharedTempFile bad_file("bad.part", bad);
  try {
    load("grid:6x6", "file:" + bad_file.path());
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(":37: part id " + std::to_string(p) + " out of range"), std::string::npos)
        << e.what();
  }
}

// Parts that are runs in canonical order but not the loader's blocks (uneven, and part 1 empty from 3 ranks on):
// rows keep their indices, each rank holds exactly its run, in order, and the graph is the grid.
TEST(DistributedGraph, RunsOtherThanTheLoadersBlocksMoveOnlyTheirEnds) {
  const int p = world().size();
  auto part_of = [&](std::int64_t i) {
    const auto q = static_cast<int>(i * i * p / 1296);  // 36 nodes: i^2 / 36^2 of the way through the ranks
    return p >= 3 && q == 1 ? 0 : q;
  };
  std::string parts;
  std::int64_t below = 0, mine = 0;
  for (std::int64_t i = 0; i < 36; ++i) {
    parts += std::to_string(part_of(i)) + "\n";
    below += part_of(i) < world().rank();
    mine += part_of(i) == world().rank();
  }
  SharedTempFile file("runs.part", parts);
  const auto g = load("grid:6x6", "file:" + file.path());
  ASSERT_EQ(g.n_local(), mine);
  EXPECT_EQ(g.first(), below);
  for (std::int64_t i = 0; i < g.n_local(); ++i) {
    EXPECT_EQ(g.canonical_index[size_t(i)], below + i);
    EXPECT_EQ(g.original_id[size_t(i)], below + i);
  }
  expect_same_entries(gather_entries(g, true), expected_grid(6, 6, true));
}

// Parts that are runs in canonical order are recognised (their cut then needs no messages, and the rows keep
// their indices); scattered parts are not. Both cuts against a count over the grid's edges written here.
TEST(Partitioner, ContiguousPartsAndTheirCut) {
  GraphOptions o;
  o.graph = "grid:7x5";  // node r * 5 + c; canonical index = id
  const CanonicalGraph c = assemble_canonical_graph(world(), read_arcs(world(), o), DuplicatePolicy::max);
  const std::int64_t first = c.first(world().rank());
  const auto runs_of = [](std::int64_t i) { return static_cast<int>(i * 3 / 35); };  // 0..11, 12..23, 24..34
  const auto scattered_of = [](std::int64_t i) { return static_cast<int>((i * 7) % 3); };
  std::vector<int> runs(static_cast<size_t>(c.n_local(world().rank()))), scattered(runs.size());
  for (size_t i = 0; i < runs.size(); ++i) {
    runs[i] = runs_of(first + static_cast<std::int64_t>(i));
    scattered[i] = scattered_of(first + static_cast<std::int64_t>(i));
  }
  const auto parts = contiguous_parts(world(), runs, 3);
  ASSERT_TRUE(parts.has_value());
  EXPECT_EQ(parts->offsets(), (std::vector<std::int64_t>{0, 12, 24, 35}));
  EXPECT_FALSE(contiguous_parts(world(), scattered, 3).has_value());  // every rank holds 8 or more nodes
  const auto cut = [](auto part_of) {
    std::int64_t n = 0;
    for (int r = 0; r < 7; ++r)
      for (int col = 0; col < 5; ++col) {
        const int u = r * 5 + col;
        if (col + 1 < 5) n += part_of(u) != part_of(u + 1);
        if (r + 1 < 7) n += part_of(u) != part_of(u + 5);
      }
    return n;
  };
  EXPECT_EQ(partition_quality(world(), c, runs, 3).edge_cut, cut(runs_of));
  EXPECT_EQ(partition_quality(world(), c, scattered, 3).edge_cut, cut(scattered_of));
}

TEST(GhostExchange, WideValuesArriveInPlace) {
  const auto g = load("grid:9x4", "metis");
  const int width = 3;
  std::vector<double> owned(size_t(g.n_local()) * width), ghosts(g.ghosts.size() * width, -1);
  for (std::int64_t i = 0; i < g.n_local(); ++i)
    for (int c = 0; c < width; ++c) owned[size_t(i) * width + size_t(c)] = double(g.original_id[size_t(i)]) * 10 + c;
  g.ghost_exchange.exchange<double>(owned, ghosts, width);
  std::vector<std::int64_t> ghost_ids(g.ghosts.size());
  g.ghost_exchange.exchange<std::int64_t>(g.original_id, ghost_ids);
  for (size_t k = 0; k < g.ghosts.size(); ++k) {
    EXPECT_EQ(g.owner(g.ghosts[k]) != world().rank(), true);
    for (int c = 0; c < width; ++c) EXPECT_EQ(ghosts[k * width + size_t(c)], double(ghost_ids[k]) * 10 + c);
  }
}
