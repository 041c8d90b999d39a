// CanonicalOrder and the canonical writers at 1-4 ranks: every routed block, translated index and written file
// equals what the test builds from a gather of every node's original id (the canonical index of a node is its
// position among all ids in ascending order), for block, METIS, PT-Scotch and file partitions, including a
// partition that leaves ranks without rows and a graph with fewer nodes than ranks (empty canonical blocks).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "graphrf/graph/canonical_order.hpp"
#include "graphrf/graph/graph_output.hpp"
#include "graphrf/io/h5_input.hpp"
#include "mpi_test_support.hpp"

namespace graphrf {

using graphrf::testing::gather_entries;
using graphrf::testing::shared_temp_path;
using graphrf::testing::SharedTempFile;
using graphrf::testing::Triplet;
using graphrf::testing::world;
using graphrf::testing::load;

namespace {

// 23 nodes with scattered ids (k * 37 mod 101, times 10, plus 3), a ring plus chords, listed in shuffled order.
std::string scattered_edge_list() {
  std::vector<std::int64_t> id(23);
  for (std::int64_t k = 0; k < 23; ++k) id[static_cast<size_t>(k)] = (k * 37 % 101) * 10 + 3;
  std::string text = "# scattered ids\n";
  for (std::int64_t k = 0; k < 23; ++k) {
    const std::int64_t a = (k * 5) % 23;  // shuffled listing order
    text += std::to_string(id[static_cast<size_t>(a)]) + " " + std::to_string(id[static_cast<size_t>((a + 1) % 23)]) + "\n";
    if (a % 3 == 0)
      text += std::to_string(id[static_cast<size_t>((a + 7) % 23)]) + "\t" + std::to_string(id[static_cast<size_t>(a)]) + "\n";
  }
  return text;
}

// Every node's original id, gathered on every rank, ascending: entry c is the node with canonical index c.
std::vector<std::int64_t> sorted_ids(const DistributedGraph& g) {
  const Communicator& comm = *g.comm;
  Counts counts(static_cast<size_t>(comm.size()), g.n_local());
  std::vector<std::int64_t> send;
  for (int r = 0; r < comm.size(); ++r) send.insert(send.end(), g.original_id.begin(), g.original_id.end());
  std::vector<std::int64_t> all = comm.alltoallv(send, counts);
  std::sort(all.begin(), all.end());
  return all;
}

std::int64_t canonical_of(const std::vector<std::int64_t>& ids, std::int64_t id) {
  return std::lower_bound(ids.begin(), ids.end(), id) - ids.begin();
}

// Checks routing, translation and both writers on one loaded graph.
void check_canonical_order(const DistributedGraph& g, const std::string& label) {
  SCOPED_TRACE(label);
  const Communicator& comm = *g.comm;
  const CanonicalOrder order(g);
  const std::vector<std::int64_t> ids = sorted_ids(g);
  const std::int64_t n = g.n_global();
  ASSERT_EQ(static_cast<std::int64_t>(ids.size()), n);
  ASSERT_EQ(order.n_global(), n);
  EXPECT_EQ(comm.sum(order.block_rows()), n);
  const std::int64_t first = order.blocks().first(comm.rank());

  // route_rows: three values per node that name it.
  std::vector<std::int64_t> local;
  for (auto id : g.original_id) local.insert(local.end(), {id, 2 * id + 1, -id});
  const std::vector<std::int64_t> block = order.route_rows<std::int64_t>(local, 3);
  ASSERT_EQ(static_cast<std::int64_t>(block.size()), 3 * order.block_rows());
  for (std::int64_t r = 0; r < order.block_rows(); ++r) {
    const std::int64_t id = ids[static_cast<size_t>(first + r)];
    EXPECT_EQ(block[static_cast<size_t>(3 * r)], id);
    EXPECT_EQ(block[static_cast<size_t>(3 * r + 1)], 2 * id + 1);
    EXPECT_EQ(block[static_cast<size_t>(3 * r + 2)], -id);
  }

  // to_canonical: every internal index, asked for by every rank in a rank-dependent order.
  std::vector<std::int64_t> internal(static_cast<size_t>(n));
  for (std::int64_t k = 0; k < n; ++k) internal[static_cast<size_t>(k)] = (k * 7 + comm.rank()) % n;
  const std::vector<std::int64_t> canonical = order.to_canonical(internal);
  std::vector<std::int64_t> id_of_internal(static_cast<size_t>(n), -1);  // by gather: internal index -> id
  {
    Counts counts(static_cast<size_t>(comm.size()), 2 * g.n_local());
    std::vector<std::int64_t> pairs, send;
    for (std::int64_t i = 0; i < g.n_local(); ++i) pairs.insert(pairs.end(), {g.first() + i, g.original_id[size_t(i)]});
    for (int r = 0; r < comm.size(); ++r) send.insert(send.end(), pairs.begin(), pairs.end());
    const auto all = comm.alltoallv(send, counts);
    for (size_t k = 0; k < all.size(); k += 2) id_of_internal[static_cast<size_t>(all[k])] = all[k + 1];
  }
  for (size_t k = 0; k < internal.size(); ++k)
    EXPECT_EQ(canonical[k], canonical_of(ids, id_of_internal[static_cast<size_t>(internal[k])])) << "internal " << internal[k];

  // RaggedRoute: node with id v has v % 4 entries v * 10 + j, and as a second array the same entries negated.
  std::vector<std::int64_t> indptr{0}, entries;
  std::vector<double> negated;
  for (auto id : g.original_id) {
    for (std::int64_t j = 0; j < id % 4; ++j) {
      entries.push_back(id * 10 + j);
      negated.push_back(-static_cast<double>(id * 10 + j));
    }
    indptr.push_back(static_cast<std::int64_t>(entries.size()));
  }
  const RaggedRoute route(order, indptr);
  const std::vector<std::int64_t> routed = route.move(entries);
  const std::vector<double> routed_negated = route.move(negated);
  const std::vector<std::int64_t>& block_indptr = route.block_indptr();
  ASSERT_EQ(static_cast<std::int64_t>(block_indptr.size()), order.block_rows() + 1);
  EXPECT_EQ(block_indptr[0], 0);
  EXPECT_EQ(block_indptr.back(), static_cast<std::int64_t>(routed.size()));
  ASSERT_EQ(routed_negated.size(), routed.size());
  for (std::int64_t r = 0; r < order.block_rows(); ++r) {
    const std::int64_t id = ids[static_cast<size_t>(first + r)];
    ASSERT_EQ(block_indptr[size_t(r) + 1] - block_indptr[size_t(r)], id % 4) << "id " << id;
    for (std::int64_t j = 0; j < id % 4; ++j) {
      const auto k = static_cast<size_t>(block_indptr[size_t(r)] + j);
      EXPECT_EQ(routed[k], id * 10 + j);
      EXPECT_EQ(routed_negated[k], -static_cast<double>(id * 10 + j));
    }
  }

  // RowSort: reversing each block row, then sorting it by value, restores it; ties keep their input order.
  {
    std::vector<std::int64_t> shuffled = routed, tag(routed.size());
    for (std::size_t row = 0; row + 1 < block_indptr.size(); ++row)
      std::reverse(shuffled.begin() + block_indptr[row], shuffled.begin() + block_indptr[row + 1]);
    for (std::size_t k = 0; k < shuffled.size(); ++k) tag[k] = static_cast<std::int64_t>(k);
    // Compare by value / 2: entries 10v and 10v + 1 tie, so a stable sort keeps the reversed pair's order.
    const RowSort sort(block_indptr, [&](std::int64_t a, std::int64_t b) {
      return shuffled[size_t(a)] / 2 < shuffled[size_t(b)] / 2;
    });
    std::vector<std::int64_t> sorted = shuffled;
    sort.apply(sorted);
    sort.apply(tag);
    for (std::size_t row = 0; row + 1 < block_indptr.size(); ++row) {
      const auto begin = static_cast<size_t>(block_indptr[row]), end = static_cast<size_t>(block_indptr[row + 1]);
      for (std::size_t k = begin; k < end; ++k) {
        EXPECT_EQ(sorted[k], shuffled[size_t(tag[k])]);  // the same permutation moved both arrays
        if (k > begin) {
          EXPECT_LE(sorted[k - 1] / 2, sorted[k] / 2);
          if (sorted[k - 1] / 2 == sorted[k] / 2) EXPECT_LT(tag[k - 1], tag[k]) << "ties keep their input order";
        }
      }
    }
  }

  // Files: /nodes/id ascending, /nodes/partition the rank that owned each node, /graph as the gathered entries
  // in canonical rows and columns, a two-column per-node dataset.
  const std::string path = shared_temp_path("canonical.h5");
  {
    H5Output out(comm, path);
    write_nodes(out, g);
    write_adjacency(out, g, true);
    std::vector<double> two;
    for (auto id : g.original_id) two.insert(two.end(), {static_cast<double>(id), 0.5 * static_cast<double>(id)});
    write_node_rows<double>(out, order, "/two", two, {2});
    out.commit();
  }
  // Which rank owned which id, and the graph's entries by original id, gathered.
  std::map<std::int64_t, int> owner_of_id;
  {
    const std::vector<std::int64_t> rows_per_rank = comm.allgather<std::int64_t>(g.n_local());  // rows per rank
    std::int64_t k = 0;
    for (int r = 0; r < comm.size(); ++r)
      for (std::int64_t i = 0; i < rows_per_rank[size_t(r)]; ++i, ++k)
        owner_of_id[id_of_internal[static_cast<size_t>(g.dist.first(r) + i)]] = r;
    EXPECT_EQ(k, n);
  }
  const std::vector<Triplet> entries_by_id = gather_entries(g, true);
  if (comm.is_root()) {
    const H5Input in(path);
    EXPECT_EQ(in.read_rows_int64("/nodes/id", 0, static_cast<std::uint64_t>(n)), ids);
    const auto partition = in.read_rows_int64("/nodes/partition", 0, static_cast<std::uint64_t>(n));
    for (std::int64_t c = 0; c < n; ++c) EXPECT_EQ(partition[size_t(c)], owner_of_id[ids[size_t(c)]]);
    const auto two = in.read_rows_double("/two", 0, static_cast<std::uint64_t>(n));
    ASSERT_EQ(in.shape("/two"), (std::vector<std::uint64_t>{static_cast<std::uint64_t>(n), 2}));
    for (std::int64_t c = 0; c < n; ++c) {
      EXPECT_EQ(two[size_t(2 * c)], static_cast<double>(ids[size_t(c)]));
      EXPECT_EQ(two[size_t(2 * c + 1)], 0.5 * static_cast<double>(ids[size_t(c)]));
    }
    // Expected CSR: entries sorted by (canonical row, canonical column), which is (row id, column id).
    std::vector<std::int64_t> want_indptr(static_cast<size_t>(n) + 1, 0), want_indices;
    std::vector<double> want_data;
    for (const Triplet& t : entries_by_id) {  // sorted by (row id, column id)
      ++want_indptr[static_cast<size_t>(canonical_of(ids, t.row)) + 1];
      want_indices.push_back(canonical_of(ids, t.col));
      want_data.push_back(t.value);
    }
    for (std::int64_t c = 0; c < n; ++c) want_indptr[size_t(c) + 1] += want_indptr[size_t(c)];
    EXPECT_EQ(in.read_rows_int64("/graph/indptr", 0, static_cast<std::uint64_t>(n) + 1), want_indptr);
    const auto nnz = static_cast<std::uint64_t>(want_indices.size());
    EXPECT_EQ(in.read_rows_int64("/graph/indices", 0, nnz), want_indices);
    EXPECT_EQ(in.read_rows_double("/graph/data", 0, nnz), want_data);
    std::remove(path.c_str());
  }
  comm.barrier();
}

class CanonicalOrderPartitions : public ::testing::TestWithParam<std::string> {};

TEST_P(CanonicalOrderPartitions, RoutedBlocksAndFilesFollowAscendingIds) {
  SharedTempFile graph("scattered.edges", scattered_edge_list());
  std::string partition = GetParam();
  const int p = world().size();
  std::string parts;
  if (partition == "file:scattered") {  // node c goes to part (c * 5 + 1) % p
    for (int c = 0; c < 23; ++c) parts += std::to_string((c * 5 + 1) % p) + "\n";
  } else if (partition == "file:last") {  // every node on the last rank: the others own no rows
    for (int c = 0; c < 23; ++c) parts += std::to_string(p - 1) + "\n";
  }
  SharedTempFile part_file("canonical.part", parts);
  if (partition.starts_with("file:")) partition = "file:" + part_file.path();
  check_canonical_order(load(graph.path(), partition), GetParam());
}

INSTANTIATE_TEST_SUITE_P(Partitioners, CanonicalOrderPartitions,
                         ::testing::Values("block", "metis", "ptscotch", "file:scattered", "file:last"),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), ':', '_');
                           return name;
                         });

TEST(CanonicalOrder, FewerNodesThanRanksLeaveEmptyBlocks) {
  // Two nodes (ids 90 and 4): at 3 and 4 ranks some canonical blocks and some owned ranges are empty.
  SharedTempFile graph("pair.edges", "90 4\n");
  for (const std::string partition : {"block", "metis"}) check_canonical_order(load(graph.path(), partition), partition);
}

}  // namespace
}  // namespace graphrf
