// Distributed products inside a host read their peers' rows and vectors from shared memory: for host sizes 1
// (messages only), 2 (at 3 ranks: hosts of 2 + 1) and 0 (the whole machine) every exchange delivers what the
// message path delivers, and the products built on them (Laplacian, statistics, masked attention) have the
// same bits; attention's output also has the bits of one rank.
#include <gtest/gtest.h>

#include <memory>

#include "graphrf/attention/attention_pipeline.hpp"
#include "graphrf/gp/gp_run.hpp"
#include "graphrf/graph/graph_statistics.hpp"
#include "graphrf/graph/laplacian_operator.hpp"
#include "graphrf/mpi/host_alltoallv.hpp"
#include "graphrf/mpi/host_exchange.hpp"
#include "graphrf/mpi/row_fetch.hpp"
#include "graphrf/spectral/chebyshev.hpp"
#include "graphrf/walks/pagerank.hpp"
#include "mpi_test_support.hpp"
#include "small_gp_options.hpp"

using namespace graphrf;
using graphrf::testing::load;
using graphrf::testing::quiet_log;
using graphrf::testing::SharedTempFile;
using graphrf::testing::world;

namespace {

// No hosts (every rank its own host: the message path) and hosts of 1, 2 and the whole machine.
std::vector<std::shared_ptr<const HostTopology>> host_layouts() {
  std::vector<std::shared_ptr<const HostTopology>> out{nullptr};
  for (int size : {1, 2, 0}) out.push_back(std::make_shared<const HostTopology>(world(), size));
  return out;
}

std::string name(const std::shared_ptr<const HostTopology>& hosts) { return hosts ? hosts->summary() : "no hosts"; }

DistributedGraph load_on(const Communicator& comm, const std::string& graph, const std::string& partition) {
  GraphOptions o;
  o.graph = graph;
  o.partition = partition;
  return load_graph(comm, o);
}

// Rows of a row-distributed matrix gathered on every rank in canonical node order.
Eigen::MatrixXd gather_canonical(const DistributedGraph& g, const RowMatrix& local) {
  const Communicator& comm = *g.comm;
  const auto cols = local.cols();
  std::vector<double> mine;
  for (std::int64_t i = 0; i < g.n_local(); ++i) {
    mine.push_back(static_cast<double>(g.canonical_index[static_cast<size_t>(i)]));
    for (Eigen::Index c = 0; c < cols; ++c) mine.push_back(local(i, c));
  }
  std::vector<double> send;
  for (int r = 0; r < comm.size(); ++r) send.insert(send.end(), mine.begin(), mine.end());
  const auto all = comm.alltoallv(send, Counts(static_cast<size_t>(comm.size()), static_cast<std::int64_t>(mine.size())));
  Eigen::MatrixXd out(g.n_global(), cols);
  for (size_t k = 0; k < all.size(); k += static_cast<size_t>(cols) + 1)
    for (Eigen::Index c = 0; c < cols; ++c) out(static_cast<Eigen::Index>(all[k]), c) = all[k + 1 + static_cast<size_t>(c)];
  return out;
}

// Diffusion-masked attention with walks halting at p 0.3 and relu features (computed row by row: the same bits at
// every rank count).
AttentionConfig small_attention_config(GrfEstimator estimator, std::int64_t walkers, std::uint64_t seed) {
  AttentionConfig config;
  config.kernel.kind = KernelKind::diffusion;
  config.kernel.beta = 1.0;
  config.walk.walkers = walkers;
  config.walk.p_halt = 0.3;
  config.walk.seed = seed;
  config.estimator = estimator;
  config.features.kind = FeatureKind::relu;
  return config;
}

// Bitwise comparison (NaN-free matrices): the largest |a - b|, which must be exactly 0.
double max_difference(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) { return (a - b).cwiseAbs().maxCoeff(); }

// What this rank sends in the exchange tests: (spread * me + d) % 3 values to rank d (some none), each naming source,
// destination and position.
struct NumberedSends {
  Counts counts;
  std::vector<std::int64_t> values;
};
NumberedSends numbered_sends(int spread) {
  const int p = world().size(), me = world().rank();
  NumberedSends out{Counts(static_cast<size_t>(p)), {}};
  for (int d = 0; d < p; ++d) {
    out.counts[static_cast<size_t>(d)] = (spread * me + d) % 3;
    for (int k = 0; k < (spread * me + d) % 3; ++k) out.values.push_back(10000 * me + 100 * d + k);
  }
  return out;
}

}  // namespace

TEST(HostAlltoallv, DeliversWhatAlltoallvDeliversInSourceOrder) {
  const Communicator& comm = world();
  const auto [counts, send] = numbered_sends(1);
  Counts want_counts;
  const auto want = comm.alltoallv(send, counts, &want_counts);
  for (const auto& hosts : host_layouts()) {
    Counts got_counts;
    EXPECT_EQ(host_alltoallv(comm, hosts.get(), send, counts, &got_counts), want) << name(hosts);
    EXPECT_EQ(got_counts, want_counts) << name(hosts);
  }
}

TEST(HostExchange, EachSourcesEntriesAreWhatAlltoallvDeliversAndOnlyOtherHostsGetMessages) {
  const Communicator& comm = world();
  const int p = comm.size();
  const auto [counts, send] = numbered_sends(2);
  Counts want_counts;
  const auto want = comm.alltoallv(send, counts, &want_counts);
  for (const auto& hosts : host_layouts()) {
    HostExchange<std::int64_t> exchange(comm, hosts.get(), counts);
    for (int d = 0; d < p; ++d) {
      const bool same_host = hosts && hosts->same_host(d);
      EXPECT_EQ(exchange.by_message(d), !(same_host && hosts->sharing())) << name(hosts) << " to " << d;
    }
    exchange.put(send);
    exchange.exchange();
    std::int64_t at = 0;
    for (int s = 0; s < p; ++s) {
      const std::vector<std::int64_t> got(exchange.from(s).begin(), exchange.from(s).end());
      const std::vector<std::int64_t> expected(want.begin() + at, want.begin() + at + want_counts[static_cast<size_t>(s)]);
      EXPECT_EQ(got, expected) << name(hosts) << " from " << s;
      at += want_counts[static_cast<size_t>(s)];
    }
  }
}

TEST(HostFetchRows, RowsOfHostPeersEqualTheMessagePath) {
  auto g = load("random:80:5:3", "metis");
  const std::int64_t width = 3;
  std::vector<double> owned;
  for (std::int64_t i = 0; i < g.n_local(); ++i)
    for (std::int64_t c = 0; c < width; ++c) owned.push_back(static_cast<double>(g.original_id[static_cast<size_t>(i)]) + 0.25 * static_cast<double>(c));
  // Every other node this rank does not own.
  std::vector<std::int64_t> needed;
  for (std::int64_t x = 0; x < g.n_global(); x += 2)
    if (!g.owns(x)) needed.push_back(x);
  std::vector<std::int64_t> ids(needed.size());
  {
    std::vector<double> id_rows(needed.size() * width);
    fetch_rows(world(), g.dist, needed, owned, width, id_rows);
    for (size_t k = 0; k < needed.size(); ++k) ids[k] = static_cast<std::int64_t>(id_rows[k * width]);
  }
  for (const auto& hosts : host_layouts()) {
    std::vector<double> rows(needed.size() * width);
    fetch_rows(world(), hosts, g.dist, needed, owned, width, rows);
    for (size_t k = 0; k < needed.size(); ++k)
      for (std::int64_t c = 0; c < width; ++c)
        EXPECT_EQ(rows[k * width + static_cast<size_t>(c)], static_cast<double>(ids[k]) + 0.25 * static_cast<double>(c)) << name(hosts);
  }
  // The ids themselves are those of the nodes asked for: each node's id once, whatever rank owns it.
  std::vector<std::int64_t> all_ids(ids);
  std::sort(all_ids.begin(), all_ids.end());
  EXPECT_EQ(std::unique(all_ids.begin(), all_ids.end()), all_ids.end());
}

TEST(HostGhostExchange, GhostsOfEveryWidthAndTypeEqualTheMessagePath) {
  auto g = load("random:90:4:7", "metis");
  std::vector<std::int64_t> want_ids(g.ghosts.size());
  g.ghost_exchange.exchange<std::int64_t>(g.original_id, want_ids);
  for (const auto& hosts : host_layouts()) {
    // Widths grow then shrink, types change: the shared window kept between calls grows and is reused.
    for (int width : {1, 3, 2}) {
      std::vector<double> owned(size_t(g.n_local()) * size_t(width)), ghosts(g.ghosts.size() * size_t(width), -1);
      for (std::int64_t i = 0; i < g.n_local(); ++i)
        for (int c = 0; c < width; ++c) owned[size_t(i) * size_t(width) + size_t(c)] = double(g.original_id[size_t(i)]) * 10 + c;
      g.ghost_exchange.exchange<double>(owned, ghosts, width, hosts);
      for (size_t k = 0; k < g.ghosts.size(); ++k)
        for (int c = 0; c < width; ++c)
          EXPECT_EQ(ghosts[k * size_t(width) + size_t(c)], double(want_ids[k]) * 10 + c) << name(hosts) << " width " << width;
    }
    std::vector<std::int64_t> ids(g.ghosts.size(), -1);
    g.ghost_exchange.exchange<std::int64_t>(g.original_id, ids, 1, hosts);
    EXPECT_EQ(ids, want_ids) << name(hosts);
  }
}

TEST(HostGhostExchange, LaplacianAndStatisticsHaveTheSameBits) {
  auto g = load("random:120:5:11", "metis");
  g.hosts = nullptr;
  const auto message_path = [&] {
    const DistributedOperator op = normalized_laplacian_operator(g);
    Eigen::MatrixXd x(g.n_local(), 3), y;
    for (std::int64_t i = 0; i < g.n_local(); ++i)
      for (int c = 0; c < 3; ++c) x(i, c) = std::sin(0.37 * double(g.canonical_index[size_t(i)]) + c);
    op.apply(x, y);
    return std::make_pair(gather_canonical(g, y), compute_statistics(g).components);
  };
  const auto [want, want_components] = message_path();
  for (const auto& hosts : host_layouts()) {
    g.hosts = hosts;
    const auto [got, components] = message_path();
    EXPECT_EQ(max_difference(got, want), 0.0) << name(hosts);
    EXPECT_EQ(components, want_components) << name(hosts);
  }
}

TEST(HostGhostExchange, BetweenHostsFillsOnlyOtherHostsGhosts) {
  auto g = load("random:90:4:7", "metis");
  std::vector<std::int64_t> want_ids(g.ghosts.size());
  g.ghost_exchange.exchange<std::int64_t>(g.original_id, want_ids);
  for (const auto& hosts : host_layouts()) {
    if (!hosts) continue;
    std::vector<std::int64_t> ids(2 * g.ghosts.size(), -1);
    g.ghost_exchange.exchange_rows_between_hosts<std::int64_t>(
        [&](std::int64_t local, std::int64_t* out) { out[0] = out[1] = g.original_id[size_t(local)]; }, ids, 2, *hosts);
    for (size_t k = 0; k < g.ghosts.size(); ++k) {
      const bool peer = hosts->same_host(g.owner(g.ghosts[k]));
      const std::int64_t want = peer ? -1 : want_ids[k];  // host peers' slots stay unwritten
      EXPECT_EQ(ids[2 * k], want) << name(hosts) << " ghost " << g.ghosts[k];
      EXPECT_EQ(ids[2 * k + 1], want) << name(hosts) << " ghost " << g.ghosts[k];
    }
  }
}

TEST(HostGhostExchange, ChebyshevStepsOnHostPanelsHaveTheSameBits) {
  // Inside a host the recurrence keeps its panels in shared memory and each step reads host peers' rows in place;
  // between hosts they come by message. Filters of two widths (the panels are allocated per width) and both
  // partitions must give the message path's bits.
  for (const char* partition : {"metis", "block"}) {
    auto g = load("random:150:5:13", partition);
    const auto c1 = chebyshev_coefficients([](double t) { return std::exp(-2.0 * t); }, 30, 2.0);
    const auto c2 = jackson_chebyshev_coefficients(0.0, 0.4, 45, 2.0);
    const auto filtered = [&](int width) {
      const DistributedOperator op = normalized_laplacian_operator(g);
      EXPECT_EQ(bool(op.new_host_panel), g.hosts && g.hosts->size() > 1) << name(g.hosts);
      Eigen::MatrixXd x(g.n_local(), width);
      for (std::int64_t i = 0; i < g.n_local(); ++i)
        for (int c = 0; c < width; ++c) x(i, c) = std::cos(0.61 * double(g.canonical_index[size_t(i)]) + c);
      const auto out = chebyshev_filter(op, 2.0, {c1, c2}, x);
      Eigen::MatrixXd both(g.n_local(), 2 * width);
      both << out[0], out[1];
      return gather_canonical(g, both);
    };
    g.hosts = nullptr;
    const Eigen::MatrixXd want3 = filtered(3), want1 = filtered(1);
    for (const auto& hosts : host_layouts()) {
      g.hosts = hosts;
      EXPECT_EQ(max_difference(filtered(3), want3), 0.0) << name(hosts) << " " << partition;
      EXPECT_EQ(max_difference(filtered(1), want1), 0.0) << name(hosts) << " " << partition;
    }
  }
}

TEST(HostAlltoallv, PageRankHasTheSameBits) {
  auto g = load("random:150:5:4", "metis");
  g.hosts = nullptr;
  const PageRankExact want = pagerank_exact(g, 0.15, StepRule::weighted, 1e-10, 100);
  for (const auto& hosts : host_layouts()) {
    g.hosts = hosts;
    const PageRankExact got = pagerank_exact(g, 0.15, StepRule::weighted, 1e-10, 100);
    EXPECT_EQ(got.rank, want.rank) << name(hosts);
    EXPECT_EQ(got.iterations, want.iterations) << name(hosts);
  }
}

TEST(HostFetchRows, GpLearningAndPredictionHaveTheSameBits) {
  auto g = load("random:120:5:8", "metis");
  const GpRunOptions o = graphrf::testing::small_gp_options(0.3);
  g.hosts = nullptr;
  const GpRun want = run_gp_regression(g, o, quiet_log());
  for (const auto& hosts : host_layouts()) {
    g.hosts = hosts;
    const GpRun got = run_gp_regression(g, o, quiet_log());
    EXPECT_EQ(got.f, want.f) << name(hosts);
    EXPECT_EQ(got.sigma_n, want.sigma_n) << name(hosts);
    EXPECT_EQ(got.metrics.rmse, want.metrics.rmse) << name(hosts);
  }
}

// Attention's key pass sums every column over its rows in canonical order, as one rank does: with the block
// partition (global order = canonical order) the output has the bits of one rank at every rank count and host
// size (before, partial sums of remote columns were added by source rank and the bits changed with the rank
// count). With METIS the query pass still adds a row's entries in global column order, so there the hosts'
// results are compared with the message path of the same partition.
TEST(HostAttention, OutputHasTheBitsOfOneRank) {
  const Communicator self(MPI_COMM_SELF);
  for (auto estimator : {GrfEstimator::symmetric, GrfEstimator::two_ensembles, GrfEstimator::asymmetric}) {
    AttentionConfig config = small_attention_config(estimator, 6, 5);
    config.walk.max_length = 12;
    const auto one_rank = load_on(self, "random:150:6:2", "block");
    const auto reference = run_attention(one_rank, synthetic_qkv(one_rank, 1, 4, 3, 9), config, quiet_log());
    for (const std::string partition : {"block", "metis"}) {
      auto g = load_on(world(), "random:150:6:2", partition);
      const auto qkv = synthetic_qkv(g, 1, 4, 3, 9);
      Eigen::MatrixXd want = gather_canonical(one_rank, reference[0].output);
      for (const auto& hosts : host_layouts()) {
        g.hosts = hosts;
        const Eigen::MatrixXd got = gather_canonical(g, run_attention(g, qkv, config, quiet_log())[0].output);
        if (partition == "metis" && !hosts) want = got;
        EXPECT_EQ(max_difference(got, want), 0.0) << partition << ", " << name(hosts) << ", estimator " << int(estimator);
      }
    }
  }
}

// Inside a host the key pass's columns and the query pass's rows (both estimators) are shared out like start rows:
// with every node on the last rank, its host peers own no column and no row, and sum those the last rank has not
// reached yet, into its rows. The output keeps the bits of one rank. That a peer takes work depends on the
// scheduler: the last rank would have to finish all 30000 columns or rows (about 64 claims) before a peer that
// needs one claim looks, which happens when the peer does not get a core in that time (more ranks than cores). So
// the run is repeated until peers have taken both, at most ten times (under load, Alg. 2, whose rows are cheap,
// needed three).
TEST(HostAttention, PeersSumTheColumnsAndRowsOfARankThatOwnsEveryNode) {
  const int p = world().size();
  std::string parts;
  for (int c = 0; c < 30000; ++c) parts += std::to_string(p - 1) + "\n";
  SharedTempFile part_file("attention-last.part", parts);
  const Communicator self(MPI_COMM_SELF);
  const auto one_rank = load_on(self, "random:30000:6:4", "block");
  const auto g = load_on(world(), "random:30000:6:4", "file:" + part_file.path());
  ASSERT_EQ(g.n_local(), world().rank() == p - 1 ? 30000 : 0);
  const bool shared = g.hosts && g.hosts->size() > 1;
  // Alg. 1 has a key pass (columns) and a query pass (rows); Alg. 2 a query pass only.
  for (auto estimator : {GrfEstimator::symmetric, GrfEstimator::asymmetric}) {
    const AttentionConfig config = small_attention_config(estimator, 4, 11);
    const bool has_key_pass = estimator == GrfEstimator::symmetric;
    const Eigen::MatrixXd want =
        gather_canonical(one_rank, run_attention(one_rank, synthetic_qkv(one_rank, 1, 4, 3, 9), config, quiet_log())[0].output);
    std::int64_t peer_columns = 0, peer_rows = 0;  // the most any run had
    const auto shared_out = [&] { return (peer_columns > 0 || !has_key_pass) && peer_rows > 0; };
    for (int attempt = 0; attempt < (shared ? 10 : 1) && (attempt == 0 || !shared_out()); ++attempt) {
      const auto heads = run_attention(g, synthetic_qkv(g, 1, 4, 3, 9), config, quiet_log());
      EXPECT_EQ(max_difference(gather_canonical(g, heads[0].output), want), 0.0) << "estimator " << int(estimator) << ", attempt " << attempt;
      peer_columns = std::max(peer_columns, world().sum(heads[0].stats.peer_columns));
      peer_rows = std::max(peer_rows, world().sum(heads[0].stats.peer_rows));
      if (std::getenv("GRAPHRF_TEST_VERBOSE") && world().is_root())
        std::printf("estimator %d, attempt %d: %lld columns and %lld rows summed by peers\n", int(estimator), attempt,
                    static_cast<long long>(peer_columns), static_cast<long long>(peer_rows));
    }
    if (shared) {
      if (has_key_pass) EXPECT_GT(peer_columns, 0) << "no host peer summed a key column of the last rank in ten runs";
      EXPECT_GT(peer_rows, 0) << "no host peer summed a query row of the last rank in ten runs, estimator " << int(estimator);
    } else {
      EXPECT_EQ(peer_columns + peer_rows, 0);
    }
  }
}
