// A replicated graph (--replicate-graph): every host's walk table holds the whole graph, each row as its owner
// writes it and every arc linked to its target's row, so no walker leaves its host; the GRF rows, the walk
// statistics and PageRank's endpoint counts are bitwise those of the message path (every rank its own host, the
// graph partitioned), for every host layout, partition, coupling, step rule and batch size. The table's
// exchange between hosts is checked on its own, with messages cut into pieces smaller than one element.
#include <gtest/gtest.h>

#include <map>
#include <tuple>

#include "graphrf/core/error.hpp"
#include "graphrf/grf/combinatorial_laplacian.hpp"
#include "graphrf/grf/grf_pipeline.hpp"
#include "graphrf/grf/grf_row_assembler.hpp"
#include "graphrf/grf/peer_rows.hpp"
#include "graphrf/walks/walk_arcs.hpp"
#include "graphrf/walks/walk_engine.hpp"
#include "mpi_test_support.hpp"
#include "peer_row_sinks.hpp"
#include "walk_test_support.hpp"

using namespace graphrf;
using graphrf::testing::diffusion;
using graphrf::testing::expect_rows_and_walks_of;
using graphrf::testing::gather_all;
using graphrf::testing::HoldRankZeroUntilShared;
using graphrf::testing::load_on_hosts;
using graphrf::testing::quiet_log;
using graphrf::testing::rows_by_id;
using graphrf::testing::walk_options;
using graphrf::testing::world;


TEST(ReplicatedWalks, EveryHostTableHoldsEveryRowAsItsOwnerWritesIt) {
  const int p = world().size();
  for (int host_size : {1, 2, 0}) {
    for (StepRule step : {StepRule::uniform, StepRule::weighted}) {
      SCOPED_TRACE("host size " + std::to_string(host_size) + (step == StepRule::weighted ? " weighted" : ""));
      DistributedGraph g = load_on_hosts("random:70:4:2", "metis", host_size, false);
      WalkOptions o;
      o.step = step;
      // The owners' rows from tables of their own (the partitioned graph), gathered: (row, target, factor, length).
      std::vector<std::int64_t> rows, targets, lengths;
      std::vector<double> factors, cumulative;
      {
        const WalkArcs own(g, o);
        for (std::int64_t v = g.first(); v < g.first() + g.n_local(); ++v) {
          const std::int64_t begin = own.row_ptr()[v - own.first()], end = own.row_ptr()[v - own.first() + 1];
          for (std::int64_t a = begin; a < end; ++a) {
            rows.push_back(v);
            targets.push_back(own.arcs()[a].target);
            factors.push_back(own.arcs()[a].factor);
            lengths.push_back(end - begin);
            if (step == StepRule::weighted) cumulative.push_back(own.cumulative()[a]);
          }
        }
      }
      const auto all_rows = gather_all(rows), all_targets = gather_all(targets), all_lengths = gather_all(lengths);
      const auto all_factors = gather_all(factors), all_cumulative = gather_all(cumulative);
      const auto ids = gather_all(g.original_id);  // by global index
      g.replicate_walk_table = true;
      const WalkArcs table(g, o);
      const bool several_hosts = p > 1 && g.hosts->count() > 1;
      EXPECT_EQ(table.replicated(), several_hosts);
      if (!several_hosts) continue;  // one host's table is the whole graph already
      ASSERT_EQ(table.first(), 0);
      ASSERT_EQ(table.end(), g.n_global());
      EXPECT_EQ(table.row_ptr()[g.n_global()], std::int64_t(all_rows.size()));
      for (std::int64_t v = 0; v < g.n_global(); ++v) EXPECT_EQ(table.original_ids()[v], ids[size_t(v)]);
      // Rows in global order, each arc as its owner wrote it, linked to its target's row.
      std::int64_t position = 0;  // of the arc in its row (a row's arcs are consecutive in the gathered lists)
      for (size_t k = 0; k < all_rows.size(); ++k) {
        const std::int64_t v = all_rows[k];
        position = k > 0 && all_rows[k - 1] == v ? position + 1 : 0;
        const std::int64_t begin = table.row_ptr()[v];
        ASSERT_EQ(table.row_ptr()[v + 1] - begin, all_lengths[k]) << "row " << v;
        const std::int64_t a = begin + position;
        const HopArc& arc = table.arcs()[a];
        EXPECT_EQ(arc.target, all_targets[k]);
        EXPECT_EQ(arc.factor, all_factors[k]);
        if (step == StepRule::weighted) EXPECT_EQ(table.cumulative()[a], all_cumulative[k]);
        ASSERT_GE(arc.degree, 0) << "arc " << v << " -> " << arc.target << " not linked";
        EXPECT_EQ(arc.begin, table.row_ptr()[arc.target]);
        EXPECT_EQ(arc.degree, table.row_ptr()[arc.target + 1] - arc.begin);
      }
    }
  }
}

TEST(ReplicatedWalks, RowsAndStatisticsAreThoseOfTheMessagePathAndNoWalkerLeavesItsHost) {
  const int p = world().size();
  WalkLimits tiny;
  tiny.walker_batch = 1;
  tiny.deposit_batch = 2;
  tiny.max_walkers_in_flight = 3;
  for (const std::string partition : {"block", "metis"})
    for (const auto& [coupling, step] : {std::pair{Coupling::iid, StepRule::uniform}, std::pair{Coupling::repelling, StepRule::uniform},
                                         std::pair{Coupling::antithetic, StepRule::weighted}})
      for (const WalkLimits& limits : {WalkLimits{}, tiny}) {
        SCOPED_TRACE(partition + " " + coupling_name(coupling) + (step == StepRule::weighted ? " weighted" : "") +
                     (limits.walker_batch == 1 ? " tiny batches" : ""));
        const WalkOptions o = walk_options(coupling, step);
        const DistributedGraph apart = load_on_hosts("random:80:4:5", partition, 1, false);
        const GrfRun message = compute_grf(apart, diffusion(), o, GrfEstimator::symmetric, quiet_log(), limits);
        const auto message_rows = rows_by_id(apart, message.phi[0]);
        if (p > 1) EXPECT_GT(message.walks[0].cross_rank_hops, 0);
        for (int host_size : {1, 2, 0}) {
          SCOPED_TRACE("host size " + std::to_string(host_size));
          const DistributedGraph g = load_on_hosts("random:80:4:5", partition, host_size, true);
          const GrfRun run = compute_grf(g, diffusion(), o, GrfEstimator::symmetric, quiet_log(), limits);
          EXPECT_TRUE(rows_by_id(g, run.phi[0]) == message_rows);
          EXPECT_EQ(run.walks[0].hops, message.walks[0].hops);
          EXPECT_EQ(run.walks[0].length_histogram, message.walks[0].length_histogram);
          EXPECT_EQ(run.walks[0].cross_rank_hops, 0);
        }
      }
}

// A rank out of start rows asks other hosts' ranks for some (row_requests.hpp): with rank 0 holding back all but
// 16 of its rows until another rank has taken some, every rank count above one shares rows between hosts for
// certain, and the rows built elsewhere come home bitwise those of the message path, Phi and M_t alike.
TEST(ReplicatedWalks, RowsWalkedOnOtherHostsForBalanceComeBackBitwise) {
  const int p = world().size();
  const WalkOptions o = walk_options(Coupling::iid);
  const DistributedGraph apart_graph = load_on_hosts("random:2000:4:5", "block", 1, false);
  const GrfRun apart = compute_grf(apart_graph, diffusion(), o, GrfEstimator::symmetric, quiet_log());
  const Communicator machine = world().split_shared();  // the tests run on one machine
  for (int host_size : {1, 2}) {
    SCOPED_TRACE("host size " + std::to_string(host_size));
    const DistributedGraph g = load_on_hosts("random:2000:4:5", "block", host_size, true);
    ASSERT_EQ(g.first(), apart_graph.first());  // block partitions: the same rows on each rank for every host size
    GrfRowAssembler assembler(g.first(), g.n_local(), o.walkers, apart.f, 64, 0);
    assembler.build_rows_for_peers();
    HoldRankZeroUntilShared sink(assembler, machine);
    WalkLimits limits;
    limits.min_shared_rows = 8;
    const WalkResult walks = run_walks(g, o, quiet_log(), limits, &sink);
    AssembledGrf rows = assembler.finish(walks.own_rows_end);
    rows = return_peer_rows(world(), std::move(rows), walks.own_rows_end, g.n_local(), assembler.finish_peer_rows());
    expect_rows_and_walks_of(rows, walks, apart);
    EXPECT_EQ(walks.stats.cross_rank_hops, 0);
    if (p == 1) {
      EXPECT_EQ(walks.stats.rows_walked_by_peers, 0);
    } else {
      EXPECT_GT(walks.stats.rows_walked_by_peers, 0);
      if (world().rank() == 0) EXPECT_LT(walks.own_rows_end, g.n_local());
    }
  }
}

TEST(ReplicatedWalks, EndpointCountsAndCombinatorialWalksAreThoseOfTheMessagePath) {
  WalkOptions o = walk_options(Coupling::iid);
  o.walkers = 8;
  WalkLimits limits;
  limits.count_endpoints = true;
  const DistributedGraph apart = load_on_hosts("random:80:4:5", "block", 1, false);
  const std::vector<std::int64_t> expected = run_walks(apart, o, quiet_log(), limits).endpoint_counts;
  // Under --weights combinatorial every row has a self-loop: rows one longer than the graph's.
  WalkOptions combinatorial = walk_options(Coupling::iid);
  combinatorial.weights = WeightMode::combinatorial;
  KernelSpec kernel = diffusion();
  bind_combinatorial_laplacian(apart, combinatorial, kernel);
  const auto expected_rows =
      rows_by_id(apart, compute_grf(apart, kernel, combinatorial, GrfEstimator::symmetric, quiet_log()).phi[0]);
  for (int host_size : {1, 2, 0}) {
    SCOPED_TRACE("host size " + std::to_string(host_size));
    const DistributedGraph g = load_on_hosts("random:80:4:5", "block", host_size, true);  // block: the same rows on each rank
    const WalkResult r = run_walks(g, o, quiet_log(), limits);
    EXPECT_EQ(r.endpoint_counts, expected);
    EXPECT_EQ(r.stats.cross_rank_hops, 0);
    EXPECT_TRUE(rows_by_id(g, compute_grf(g, kernel, combinatorial, GrfEstimator::symmetric, quiet_log()).phi[0]) ==
                expected_rows);
  }
}

TEST(ReplicatedWalks, TheMemoryEstimateCountsTheWholeTableOnceAHost) {
  const int p = world().size();
  for (int host_size : {1, 2, 0}) {
    SCOPED_TRACE("host size " + std::to_string(host_size));
    DistributedGraph g = load_on_hosts("random:90:4:7", "block", host_size, true);
    const WalkOptions o;
    const double rank_bytes = walk_table_bytes(g, o);
    const double host_bytes = g.hosts->host().sum(rank_bytes);
    // Arcs, row pointers and every node's original id.
    const double whole = double(kWalkArcBytes) * double(g.n_arcs_global) + 8.0 * double(g.n_global() + 1) + 8.0 * double(g.n_global());
    if (p > 1 && g.hosts->count() > 1) EXPECT_NEAR(host_bytes, whole, 1e-6 * whole);
    // Not replicated: the host's share alone.
    g.replicate_walk_table = false;
    const double share = g.hosts->host().sum(walk_table_bytes(g, o));
    if (p > 1 && g.hosts->count() > 1) EXPECT_LT(share, whole);
  }
}

TEST(Communicator, AllgatherBlocksInPlaceGivesEveryRankEveryBlock) {
  const Communicator& comm = world();
  const int p = comm.size();
  const std::int64_t saved = Communicator::max_message_bytes();
  for (std::int64_t max_bytes : {std::int64_t{1} << 30, std::int64_t{3}}) {  // 3: every block in pieces
    Communicator::set_max_message_bytes(max_bytes);
    // Rank r's block: 5 r + 1 values (rank 1's is empty), each r * 1000 + its position.
    Counts bytes;
    std::vector<std::int64_t> expected;
    for (int r = 0; r < p; ++r) {
      const std::int64_t count = r == 1 ? 0 : 5 * r + 1;
      bytes.push_back(8 * count);
      for (std::int64_t k = 0; k < count; ++k) expected.push_back(r * 1000 + k);
    }
    std::vector<std::int64_t> data(expected.size(), -1);
    std::int64_t at = 0;
    for (int r = 0; r < comm.rank(); ++r) at += bytes[size_t(r)] / 8;
    for (std::int64_t k = 0; k < bytes[size_t(comm.rank())] / 8; ++k) data[size_t(at + k)] = comm.rank() * 1000 + k;
    comm.allgather_blocks_in_place(data.data(), bytes);
    EXPECT_EQ(data, expected) << "messages of at most " << max_bytes << " bytes";
  }
  Communicator::set_max_message_bytes(saved);
  EXPECT_THROW(comm.allgather_blocks_in_place(nullptr, Counts(size_t(p) + 1, 0)), Error);
}
