// PageRank: the directed loader, exact power iteration and the walk estimator under every coupling, against a
// dense PageRank computed in this test, P = D_out^-1 A with dangling rows uniform (networkx's convention).
#include "graphrf/walks/pagerank.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <map>

#include "mpi_test_support.hpp"

using namespace graphrf;
using graphrf::testing::gather_entries;
using graphrf::testing::SharedTempFile;
using graphrf::testing::world;
using graphrf::testing::quiet_log;

namespace {

// 10 nodes, ids 0..9; node 9 has no out-arcs (dangling); 2 -> 0 and 0 -> 2 both exist; 7 -> 8 is listed twice.
const char* kArcs = "0 1\n0 2\n1 2\n2 0\n2 3\n3 4\n4 5\n5 3\n5 6\n6 7\n7 8\n7 8\n8 9\n6 9\n1 9\n3 0\n";
constexpr int kNodes = 10;

Eigen::MatrixXd transition_with_teleport() {
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(kNodes, kNodes);
  std::istringstream in(kArcs);
  int u = 0, v = 0;
  while (in >> u >> v) a(u, v) = 1;  // the repeated arc is one arc
  Eigen::MatrixXd p(kNodes, kNodes);
  for (int i = 0; i < kNodes; ++i) {
    const double out = a.row(i).sum();
    p.row(i) = out > 0 ? Eigen::VectorXd(a.row(i).transpose() / out) : Eigen::VectorXd::Constant(kNodes, 1.0 / kNodes);
  }
  return p;
}

// Row i: the distribution of the end point of a walk from i that halts with probability p before each hop.
Eigen::MatrixXd end_point_distributions(double p) {
  const Eigen::MatrixXd m = Eigen::MatrixXd::Identity(kNodes, kNodes) - (1 - p) * transition_with_teleport();
  return p * m.inverse();
}

Eigen::VectorXd dense_pagerank(double p) { return end_point_distributions(p).colwise().mean().transpose(); }

// Per-node values gathered on every rank, by original id.
std::vector<double> by_id(const DistributedGraph& g, const std::vector<double>& local) {
  struct Entry {
    std::int64_t id;
    double value;
  };
  std::vector<Entry> mine, send;
  for (std::int64_t i = 0; i < g.n_local(); ++i) mine.push_back({g.original_id[size_t(i)], local[size_t(i)]});
  const Communicator& comm = *g.comm;
  Counts counts(size_t(comm.size()), std::int64_t(mine.size()));
  for (int r = 0; r < comm.size(); ++r) send.insert(send.end(), mine.begin(), mine.end());
  std::vector<double> out(size_t(g.n_global()));
  for (const auto& e : comm.alltoallv(send, counts)) out[size_t(e.id)] = e.value;
  return out;
}

DistributedGraph load_directed(const Communicator& comm, const std::string& path, const std::string& partition = "block") {
  GraphOptions o;
  o.graph = path;
  o.directed = true;
  o.partition = partition;
  return load_graph(comm, o);
}

WalkOptions pagerank_walks(std::int64_t n, std::uint64_t seed, Coupling coupling = Coupling::iid) {
  WalkOptions o;
  o.walkers = n;
  o.p_halt = 0.15;
  o.max_length = pagerank_default_max_length(o.p_halt);
  o.seed = seed;
  o.coupling = coupling;
  if (termination_of(coupling) == Termination::sigma) o.sigma = {4, 2, 0, 3, 1, 5};
  return o;
}

}  // namespace

TEST(PageRank, DirectedLoaderKeepsArcsAsGiven) {
  SharedTempFile file("pagerank.txt", kArcs);
  const auto g = load_directed(world(), file.path());
  const auto arcs = gather_entries(g, false);
  const Eigen::MatrixXd p = transition_with_teleport();
  ASSERT_EQ(arcs.size(), 15u);  // 16 lines, one repeated
  for (const auto& a : arcs) EXPECT_GT(p(a.row, a.col), 0.0) << a.row << " -> " << a.col;
  EXPECT_EQ(g.n_edges_global, 15);
}

TEST(PageRank, PowerIterationMatchesTheDenseSolution) {
  SharedTempFile file("pagerank.txt", kArcs);
  const auto g = load_directed(world(), file.path());
  const PageRankExact exact = pagerank_exact(g, 0.15);
  const auto got = by_id(g, exact.rank);
  const Eigen::VectorXd want = dense_pagerank(0.15);
  for (int j = 0; j < kNodes; ++j) EXPECT_NEAR(got[size_t(j)], want(j), 1e-12) << "node " << j;
  EXPECT_LT(exact.error_bound, 1e-12);
}

TEST(PageRank, IidWalkEstimateIsWithinItsMonteCarloBound) {
  // pi^_j = (1/(N n)) sum_i (walks from i ending at j): independent indicators with P = E_ij, so
  // Var pi^_j = sum_i E_ij (1 - E_ij) / (N^2 n). With n = 4000 (40000 walks) the estimate is close to
  // normal; 6 standard deviations per node fail with probability about 2e-9, 2e-8 over the 10 nodes.
  SharedTempFile file("pagerank.txt", kArcs);
  const auto g = load_directed(world(), file.path());
  const std::int64_t n = 4000;
  const auto got = by_id(g, pagerank_by_walks(g, pagerank_walks(n, 3), quiet_log()).rank);
  const Eigen::MatrixXd e = end_point_distributions(0.15);
  const Eigen::VectorXd want = dense_pagerank(0.15);
  for (int j = 0; j < kNodes; ++j) {
    const double var = (e.col(j).array() * (1 - e.col(j).array())).sum() / (kNodes * kNodes * double(n));
    EXPECT_NEAR(got[size_t(j)], want(j), 6 * std::sqrt(var)) << "node " << j;
  }
}

TEST(PageRank, EveryCouplingIsUnbiasedAndRankInvariant) {
  // Unbiased: the mean over R = 150 seeds, standardised by its empirical standard error, gives sum z^2 over
  // the nodes at most chi-square with 10 dof (9 after the sum-to-one constraint); it fails above the
  // level-1e-6 critical value (Wilson-Hilferty, z = 4.9). Rank invariance: end-point counts are integers, so
  // the estimate equals the one-rank run exactly.
  SharedTempFile file("pagerank.txt", kArcs);
  const auto g = load_directed(world(), file.path());
  const Eigen::VectorXd want = dense_pagerank(0.15);
  for (Coupling c : {Coupling::iid, Coupling::antithetic, Coupling::sigma, Coupling::repelling,
                     Coupling::antithetic_repelling, Coupling::sigma_repelling}) {
    SCOPED_TRACE(coupling_name(c));
    const int reps = 150;
    Eigen::VectorXd sum = Eigen::VectorXd::Zero(kNodes), sum_sq = Eigen::VectorXd::Zero(kNodes);
    for (int r = 0; r < reps; ++r) {
      const auto got = by_id(g, pagerank_by_walks(g, pagerank_walks(8, 100 + std::uint64_t(r), c), quiet_log()).rank);
      const Eigen::VectorXd v = Eigen::Map<const Eigen::VectorXd>(got.data(), kNodes);
      sum += v;
      sum_sq += v.cwiseProduct(v);
    }
    double chi = 0;
    for (int j = 0; j < kNodes; ++j) {
      const double mean = sum(j) / reps, var = (sum_sq(j) / reps - mean * mean) * reps / (reps - 1);
      chi += std::pow(mean - want(j), 2) / (var / reps);
    }
    const double dof = kNodes, critical = dof * std::pow(1 - 2.0 / (9 * dof) + 4.9 * std::sqrt(2.0 / (9 * dof)), 3);
    EXPECT_LT(chi, critical);

    const auto all = by_id(g, pagerank_by_walks(g, pagerank_walks(6, 9, c), quiet_log()).rank);
    MPI_Comm solo_comm;
    MPI_Comm_split(MPI_COMM_WORLD, world().rank() == 0 ? 0 : MPI_UNDEFINED, 0, &solo_comm);
    int same = 1;
    if (world().rank() == 0) {
      const Communicator solo(solo_comm);
      const auto g1 = load_directed(solo, file.path());
      const Log log(solo, true);
      same = by_id(g1, pagerank_by_walks(g1, pagerank_walks(6, 9, c), log).rank) == all ? 1 : 0;
      MPI_Comm_free(&solo_comm);
    }
    world().broadcast(same);
    EXPECT_EQ(same, 1);
  }
}
