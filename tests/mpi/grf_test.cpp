// Graph random features against computations written in this test: an independent serial walker that follows Reid
// et al. 2025a ("Linear transformer topological masking with graph random features", Eq. 10) with the same
// counter-based draws (bitwise equality, any rank count and partition), exact dense kernels (statistical tests
// with derived tolerances), and walk statistics.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <functional>
#include <map>

#include "graphrf/grf/combinatorial_laplacian.hpp"
#include "graphrf/grf/dense_gather.hpp"
#include "graphrf/grf/dense_reference.hpp"
#include "graphrf/grf/grf_pipeline.hpp"
#include "graphrf/grf/grf_row_assembler.hpp"
#include "graphrf/mpi/request_reply.hpp"
#include "graphrf/walks/walk_hop.hpp"
#include "mpi_test_support.hpp"

using namespace graphrf;
using graphrf::testing::gather_entries;
using graphrf::testing::SharedTempFile;
using graphrf::testing::Triplet;
using graphrf::testing::world;
using graphrf::testing::quiet_log;

namespace {

DistributedGraph load_on(const Communicator& comm, const std::string& graph, const std::string& partition = "block") {
  GraphOptions o;
  o.graph = graph;
  o.partition = partition;
  return load_graph(comm, o);
}

// Phi entries by original ids (row id, column id) -> value, gathered on every rank.
std::map<std::pair<std::int64_t, std::int64_t>, double> phi_by_id(const DistributedGraph& g, const SparseRows& phi) {
  std::vector<std::int64_t> ghost_ids(g.ghosts.size());
  g.ghost_exchange.exchange<std::int64_t>(g.original_id, ghost_ids);
  // Columns may be any node, not only neighbours: ask owners for their ids.
  std::vector<Triplet> local;
  std::vector<std::int64_t> cols(phi.col.begin(), phi.col.end());
  const auto col_ids = request_reply<std::int64_t>(
      *g.comm, std::span<const std::int64_t>(cols), [&](std::int64_t c) { return g.owner(c); },
      [&](std::int64_t c) { return g.original_id[static_cast<size_t>(c - g.first())]; });
  for (std::int64_t i = 0; i < phi.n_local(); ++i)
    for (auto k = phi.indptr[size_t(i)]; k < phi.indptr[size_t(i) + 1]; ++k)
      local.push_back({g.original_id[size_t(i)], col_ids[size_t(k)], phi.value[size_t(k)]});
  const Communicator& comm = *g.comm;
  Counts counts(size_t(comm.size()), std::int64_t(local.size()));
  std::vector<Triplet> send;
  for (int r = 0; r < comm.size(); ++r) send.insert(send.end(), local.begin(), local.end());
  std::map<std::pair<std::int64_t, std::int64_t>, double> out;
  for (const auto& t : comm.alltoallv(send, counts)) out[{t.row, t.col}] = t.value;
  return out;
}

// An independent serial simulation of the GRF estimator (Reid et al. 2025a, Eq. 10) on the graph given by
// its entries (W by original ids, neighbours in ascending id order), summing in the order the engine documents.
std::map<std::pair<std::int64_t, std::int64_t>, double> serial_grf(const std::vector<Triplet>& w_entries,
                                                                   const WalkOptions& o, const std::vector<double>& f) {
  std::map<std::int64_t, std::vector<std::pair<std::int64_t, double>>> nb;
  for (const auto& t : w_entries) nb[t.row].push_back({t.col, t.value});  // sorted by (row, col)
  // (row, col, step) -> loads
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, std::vector<double>> visits;
  std::vector<double> compensation(static_cast<size_t>(o.max_length) + 1, 1.0);
  for (size_t t = 1; t < compensation.size(); ++t) compensation[t] = compensation[t - 1] * (1.0 / (1.0 - o.p_halt));
  for (const auto& [start, _] : nb) {
    for (std::int64_t k = 0; k < o.walkers; ++k) {
      std::int64_t v = start;
      double load = 1.0;
      for (std::int64_t t = 0;; ++t) {
        visits[{start, v, t}].push_back(load * compensation[static_cast<size_t>(t)]);
        if (t == o.max_length) break;
        const WalkDraw d = draw_hop(o, start, k, t);
        if (d.halt) break;
        const auto& row = nb[v];
        if (row.empty()) break;
        const auto pick = uniform_below(d.choice, row.size());
        // W_vu deg(v) per hop; (1/(1 - p))^t is applied to the deposit, as the engine does.
        const double factor = row[pick].second * static_cast<double>(row.size());
        load *= factor;
        v = row[pick].first;
      }
    }
  }
  std::map<std::pair<std::int64_t, std::int64_t>, double> phi;
  const double inv_n = 1.0 / static_cast<double>(o.walkers);
  for (auto& [key, loads] : visits) {  // ordered by (row, col, step)
    std::sort(loads.begin(), loads.end());  // equal keys add up in ascending order (of value: all positive here)
    double sum = 0;
    for (double l : loads) sum += l;
    const auto t = static_cast<size_t>(std::get<2>(key));
    phi[{std::get<0>(key), std::get<1>(key)}] += (t < f.size() ? f[t] : 0.0) * (sum * inv_n);
  }
  return phi;
}

WalkOptions options(std::int64_t n, double p, std::int64_t max_length, std::uint64_t seed) {
  WalkOptions o;
  o.walkers = n;
  o.p_halt = p;
  o.max_length = max_length;
  o.seed = seed;
  return o;
}

KernelSpec diffusion(double beta) {
  KernelSpec k;
  k.kind = KernelKind::diffusion;
  k.beta = beta;
  return k;
}

}  // namespace

TEST(Grf, EqualsIndependentSerialWalkerForEveryPartition) {
  const WalkOptions o = options(6, 0.3, 12, 42);
  std::map<std::pair<std::int64_t, std::int64_t>, double> first;
  for (const std::string partition : {"block", "metis", "ptscotch"}) {
    const auto g = load_on(world(), "random:60:4:3", partition);
    const auto run = compute_grf(g, diffusion(0.7), o, GrfEstimator::symmetric, quiet_log());
    const auto got = phi_by_id(g, run.phi[0]);
    const auto want = serial_grf(gather_entries(g, true), o, run.f);
    ASSERT_EQ(got.size(), want.size()) << partition;
    for (const auto& [key, value] : want) {
      auto it = got.find(key);
      ASSERT_NE(it, got.end()) << partition << " missing " << key.first << "," << key.second;
      EXPECT_EQ(it->second, value) << partition << " at " << key.first << "," << key.second;  // bitwise
    }
    if (first.empty()) first = got;
    EXPECT_TRUE(first == got) << partition;
  }
}

namespace {
// Builds the GRF of `graph` (partitioned by `partition`) on every rank with `limits`, then on rank 0 alone (a
// one-rank communicator, default limits), and expects the same rows, bitwise, and the same hop count.
void expect_rows_of_one_rank(const std::string& graph, const std::string& partition, const WalkOptions& o,
                             const KernelSpec& kernel, const WalkLimits& limits = {}) {
  const auto g = load_on(world(), graph, partition);
  const auto run = compute_grf(g, kernel, o, GrfEstimator::symmetric, quiet_log(), limits);
  const auto all = phi_by_id(g, run.phi[0]);
  MPI_Comm solo_comm;
  MPI_Comm_split(MPI_COMM_WORLD, world().rank() == 0 ? 0 : MPI_UNDEFINED, 0, &solo_comm);
  int same = 1;
  if (world().rank() == 0) {
    const Communicator solo(solo_comm);
    const auto g1 = load_on(solo, graph);
    const Log log(solo, true);
    const auto run1 = compute_grf(g1, kernel, o, GrfEstimator::symmetric, log);
    same = phi_by_id(g1, run1.phi[0]) == all ? 1 : 0;
    EXPECT_EQ(run1.walks[0].hops, run.walks[0].hops) << graph;
    MPI_Comm_free(&solo_comm);
  }
  world().broadcast(same);
  EXPECT_EQ(same, 1) << graph << " " << coupling_name(o.coupling);
}
}  // namespace

TEST(Grf, OneRankAndAllRanksGiveBitwiseIdenticalRowsEvenWithTinyBatches) {
  WalkLimits tiny;
  tiny.walker_batch = 1;
  tiny.deposit_batch = 2;
  tiny.max_walkers_in_flight = 3;
  expect_rows_of_one_rank("grid:9x7", "metis", options(8, 0.2, 20, 7), diffusion(1.0), tiny);
}

// Long walks on an expander with a block partition: at several ranks most rows wait for visits from other ranks
// while later rows open, so the assembler's ring of open rows grows (from 1024 slots) under walkers that are
// appending to rows it holds; the rows are bitwise those of one rank, for i.i.d. and repelling walks.
TEST(Grf, RowsOpenFarAheadGiveTheRowsOfOneRank) {
  for (Coupling c : {Coupling::iid, Coupling::repelling}) {
    WalkOptions o = options(2, 0.02, 200, 13);
    o.coupling = c;
    expect_rows_of_one_rank("random:6000:6:5", "block", o, diffusion(0.5));
  }
}

// Streaming assembly with a window of two open rows: the engine may not start a row until the rows
// before the window are built, so at most 2 * n * max_length visits are ever held, far fewer than the
// walks make; the rows are bitwise those of the default window.
namespace {
// Walks `o` with tiny batches into an assembler whose window is two open rows; expects the rows of the
// default window, bitwise, with at most 2 * n * max_length visits held. Returns the hops.
std::int64_t expect_same_rows_in_a_two_row_window(const DistributedGraph& g, const WalkOptions& o) {
  const auto run = compute_grf(g, diffusion(0.8), o, GrfEstimator::symmetric, quiet_log());
  WalkLimits tiny;
  tiny.walker_batch = 2;
  tiny.deposit_batch = 3;
  GrfRowAssembler assembler(g.first(), g.n_local(), o.walkers, run.f, 2, 0);
  const WalkResult walks = run_walks(g, o, quiet_log(), tiny, &assembler);
  const AssembledGrf rows = assembler.finish();
  EXPECT_EQ(walks.stats.hops, run.walks[0].hops);
  EXPECT_TRUE(phi_by_id(g, rows.phi) == phi_by_id(g, run.phi[0]));
  EXPECT_EQ(rows.by_length.value, run.by_length[0].value);
  EXPECT_LE(assembler.peak_pending_visits(), 2 * o.walkers * o.max_length);
  return walks.stats.hops;
}
}  // namespace

TEST(Grf, TwoOpenRowsHoldFewVisitsAndGiveTheSameRows) {
  const WalkOptions o = options(6, 0.15, 16, 3);
  const auto g = load_on(world(), "random:400:4:2", "metis");
  const std::int64_t hops = expect_same_rows_in_a_two_row_window(g, o);
  // The whole run makes many times more visits (one per hop) than the window can hold.
  EXPECT_GT(hops, 20 * 2 * o.walkers * o.max_length);
}

// `grf` without --by-length builds Phi without keeping M_t: the same rows, bitwise, for every ensemble.
TEST(Grf, PhiWithoutLengthResolvedRowsIsTheSame) {
  const auto g = load_on(world(), "random:400:4:2", "metis");
  for (Coupling c : {Coupling::iid, Coupling::repelling}) {
    WalkOptions o = options(4, 0.2, 16, 5);
    o.coupling = c;
    const auto keep = compute_grf(g, diffusion(0.8), o, GrfEstimator::two_ensembles, quiet_log());
    const auto drop = compute_grf(g, diffusion(0.8), o, GrfEstimator::two_ensembles, quiet_log(), WalkLimits{},
                                  LengthResolvedRows::drop);
    ASSERT_EQ(drop.phi.size(), 2u);
    for (size_t e = 0; e < 2; ++e) {
      EXPECT_TRUE(drop.by_length[e].col.empty());
      EXPECT_FALSE(keep.by_length[e].col.empty());
      EXPECT_TRUE(phi_by_id(g, drop.phi[e]) == phi_by_id(g, keep.phi[e])) << coupling_name(c) << ", ensemble " << e;
    }
  }
}

namespace {
// Every coupling, with the permutation sigma = 24351 (Reid et al. 2025b, Fig. 2) where one is needed.
std::vector<WalkOptions> every_coupling(const WalkOptions& base) {
  std::vector<WalkOptions> out;
  for (Coupling c : {Coupling::iid, Coupling::antithetic, Coupling::sigma, Coupling::repelling,
                     Coupling::antithetic_repelling, Coupling::sigma_repelling}) {
    WalkOptions o = base;
    o.coupling = c;
    if (termination_of(c) == Termination::sigma) o.sigma = {1, 3, 2, 4, 0};
    out.push_back(o);
  }
  return out;
}
}  // namespace

// The same two-row window under every coupling: repelling groups start all n walkers of a row at once and
// must wait for the window like single walkers.
TEST(Grf, TwoOpenRowsGiveTheSameRowsUnderEveryCoupling) {
  const auto g = load_on(world(), "random:400:4:2", "metis");
  for (const WalkOptions& o : every_coupling(options(6, 0.15, 16, 3))) {
    SCOPED_TRACE(coupling_name(o.coupling));
    expect_same_rows_in_a_two_row_window(g, o);
  }
}

// start_every (sigma learning's sample): rows whose walkers start are those of the full run, bitwise (a
// row's walks depend only on its start node); the other rows hold M_0 = I only, Phi[i, i] = f_0. The
// assembly window (64 rows) is narrower than a rank's rows, so rows without walkers must not block it.
TEST(Grf, StartEveryBuildsStartRowsAsTheFullRunAndIdentityElsewhere) {
  const auto g = load_on(world(), "random:300:4:2", "metis");
  for (const WalkOptions& full : every_coupling(options(6, 0.3, 16, 5))) {
    SCOPED_TRACE(coupling_name(full.coupling));
    WalkOptions sampled = full;
    sampled.start_every = 3;
    WalkLimits window;
    window.max_walkers_in_flight = 64 * full.walkers;  // open_row_limit: 64 rows
    const auto all = phi_by_id(g, compute_grf(g, diffusion(0.8), full, GrfEstimator::symmetric, quiet_log()).phi[0]);
    const auto run = compute_grf(g, diffusion(0.8), sampled, GrfEstimator::symmetric, quiet_log(), window);
    const auto got = phi_by_id(g, run.phi[0]);
    std::map<std::pair<std::int64_t, std::int64_t>, double> want;
    for (const auto& [key, value] : all)
      if (key.first % 3 == 0) want[key] = value;  // generated graphs: id = canonical index
    for (std::int64_t i = 0; i < 300; ++i)
      if (i % 3 != 0) want[{i, i}] = run.f[0];
    EXPECT_TRUE(got == want);
  }
}

TEST(Grf, StatisticsAreConservedAndLengthsGeometricUnderEveryCoupling) {
  // 6 couplings, each failing by chance with probability about 1e-6.
  for (const WalkOptions& o : every_coupling(options(40, 0.25, 200, 11))) {
    SCOPED_TRACE(coupling_name(o.coupling));
    const auto g = load_on(world(), "random:500:6:5", "block");
    const auto run = compute_grf(g, diffusion(1.0), o, GrfEstimator::symmetric, quiet_log());
    const auto& s = run.walks[0];
    EXPECT_EQ(s.walkers, 500 * 40);
    std::int64_t finished = 0, hops = 0;
    for (size_t t = 0; t < s.length_histogram.size(); ++t) {
      finished += s.length_histogram[t];
      hops += std::int64_t(t) * s.length_histogram[t];
    }
    EXPECT_EQ(finished, s.walkers);
    EXPECT_EQ(hops, s.hops);
    EXPECT_EQ(s.dead_ends, 0);
    // Chi-square against Geometric(p), bins with expected count >= 20, level 1e-6 (critical value from the
    // Wilson-Hilferty bound with z = 4.9).
    const double n = double(s.walkers), p = o.p_halt;
    double chi = 0, tail_obs = n, tail_prob = 1;
    int bins = 0;
    for (size_t k = 0; k < s.length_histogram.size(); ++k) {
      const double prob = p * std::pow(1 - p, double(k));
      if (n * prob < 20 || n * (tail_prob - prob) < 20) break;
      chi += std::pow(double(s.length_histogram[k]) - n * prob, 2) / (n * prob);
      tail_obs -= double(s.length_histogram[k]);
      tail_prob -= prob;
      ++bins;
    }
    chi += std::pow(tail_obs - n * tail_prob, 2) / (n * tail_prob);
    // Coupled pairs (antithetic, sigma) are dependent: the bin counts are sums over independent pairs, and
    // Cov(X1 + X2) <= 2 (Cov X1 + Cov X2), so the statistic is dominated by 2 chi-square(bins): double the
    // critical value there (same level).
    const double inflation = termination_of(o.coupling) == Termination::iid ? 1.0 : 2.0;
    const double crit = bins * std::pow(1 - 2.0 / (9 * bins) + 4.9 * std::sqrt(2.0 / (9 * bins)), 3);
    EXPECT_LT(chi, inflation * crit) << bins << " bins";
  }
}


// The engine draws each sigma pair's block once (with the pair's first walker, in the lanes and in a repelling
// pack's first step): every walker must still get exactly its own fixed_walk_length. With no truncation and no
// dead ends, the length histogram is then the histogram of those lengths, at every rank count.
TEST(Grf, SigmaWalkersGetTheirOwnPairLengths) {
  const auto g = load_on(world(), "random:400:6:5", "metis");
  for (const WalkOptions& o : every_coupling(options(6, 0.3, 1000, 21))) {
    if (termination_of(o.coupling) != Termination::sigma) continue;
    SCOPED_TRACE(coupling_name(o.coupling));
    const auto run = compute_grf(g, diffusion(1.0), o, GrfEstimator::symmetric, quiet_log());
    ASSERT_EQ(run.walks[0].dead_ends, 0);
    ASSERT_EQ(run.walks[0].truncated, 0);
    std::vector<std::int64_t> want(run.walks[0].length_histogram.size(), 0);
    for (std::int64_t id = 0; id < 400; ++id)  // generated graphs: id = canonical index
      for (std::int64_t k = 0; k < o.walkers; ++k) ++want.at(static_cast<size_t>(fixed_walk_length(o, id, k)));
    EXPECT_EQ(run.walks[0].length_histogram, want);
  }
}

TEST(Grf, DeadEndsAndTruncationAreCountedExactly) {
  // A path 1-2-3 plus isolated declared nodes 4 and 5 (Matrix Market keeps them).
  SharedTempFile file("dead-ends.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n5 5 2\n2 1\n3 2\n");
  const WalkOptions o = options(50, 0.4, 3, 5);
  const auto g = load_on(world(), file.path());
  const auto run = compute_grf(g, diffusion(1.0), o, GrfEstimator::symmetric, quiet_log());
  // Walkers from the isolated nodes 4 and 5 are dead ends unless they halt before the first hop; walkers
  // on the path are truncated when they make 3 hops. Both follow from the draws alone.
  std::int64_t dead = 0, truncated = 0;
  for (std::int64_t id = 1; id <= 5; ++id)
    for (std::int64_t k = 0; k < o.walkers; ++k) {
      if (id >= 4) {
        dead += !draw_hop(o, id, k, 0).halt;
        continue;
      }
      bool halted = false;
      for (std::int64_t t = 0; t < 3 && !halted; ++t) halted = draw_hop(o, id, k, t).halt;
      truncated += !halted;
    }
  EXPECT_EQ(run.walks[0].dead_ends, dead);
  EXPECT_EQ(run.walks[0].truncated, truncated);
  EXPECT_GT(dead, 0);
  EXPECT_GT(truncated, 0);
}

TEST(Grf, RebuildingFromLengthsEqualsAFreshRunWithTheNewF) {
  const WalkOptions o = options(10, 0.3, 15, 99);
  const auto g = load_on(world(), "grid:6x6", "ptscotch");
  const auto run = compute_grf(g, diffusion(1.0), o, GrfEstimator::symmetric, quiet_log());
  KernelSpec other;
  other.kind = KernelKind::regularized_laplacian;
  other.beta = 0.8;
  other.power = 2;
  const auto fresh = compute_grf(g, other, o, GrfEstimator::symmetric, quiet_log());
  const auto rebuilt = combine_lengths(run.by_length[0], fresh.f);
  EXPECT_EQ(rebuilt.indptr, fresh.phi[0].indptr);
  EXPECT_EQ(rebuilt.col, fresh.phi[0].col);
  EXPECT_EQ(rebuilt.value, fresh.phi[0].value);  // bitwise
}

namespace {
// Off-diagonal unbiasedness of Phi Phi^T for a kernel, over R = 200 independent seeds. For each of the
// 8*7/2 off-diagonal pairs, z = (mean - exact) / standard error of the mean; with R = 200 the means are
// close to normal, so sum z^2 is at most chi-square with 28 degrees of freedom (fewer where an entry is always 0). The test
// fails when it exceeds the level-1e-6 critical value (Wilson-Hilferty, z = 4.9: about 72), i.e. by chance with
// probability about 1e-6 per kernel. Aggregating over entries makes the test sensitive to small biases
// (a 2% error in the per-hop importance weight is detected).
// The asymmetric estimate (Phi with f = alpha) is unbiased everywhere and not symmetric: all 64 entries.
// `base` supplies coupling, step rule and weights; walkers, seeds and lengths are set here.
// `exact_of_adjacency`, when given, computes the exact kernel from the dense adjacency A (rank 0) instead of
// from the walk's W; under --weights combinatorial the walks and kernel are bound to the graph's d_max first.
void expect_unbiased_off_diagonal(const KernelSpec& unbound_kernel, double p_halt,
                                  GrfEstimator estimator = GrfEstimator::symmetric, const WalkOptions& unbound_base = {},
                                  const std::string& graph = "random:8:3:21", std::int64_t max_length = 60,
                                  const std::function<Eigen::MatrixXd(const Eigen::MatrixXd&)>& exact_of_adjacency = {}) {
  const bool all_entries = estimator == GrfEstimator::asymmetric;
  const auto g = load_on(world(), graph, "metis");
  KernelSpec kernel = unbound_kernel;
  WalkOptions base = unbound_base;
  bind_combinatorial_laplacian(g, base, kernel);
  const int reps = 200;
  WalkOptions raw;
  raw.weights = WeightMode::raw;
  const auto w = exact_of_adjacency ? gather_dense_w(g, raw) : gather_dense_w(g, base);
  Eigen::MatrixXd sum = Eigen::MatrixXd::Zero(8, 8), sum_sq = Eigen::MatrixXd::Zero(8, 8);
  for (int r = 0; r < reps; ++r) {
    WalkOptions o = base;
    o.walkers = 64;
    o.p_halt = p_halt;
    o.max_length = max_length;
    o.seed = 1000 + std::uint64_t(r);
    const auto run = compute_grf(g, kernel, o, estimator, quiet_log());
    const Eigen::MatrixXd est = dense_kernel_estimate(g, run);
    if (world().is_root()) {
      sum += est;
      sum_sq += est.cwiseProduct(est);
    }
  }
  if (!world().is_root()) return;
  const Eigen::MatrixXd exact = exact_of_adjacency ? exact_of_adjacency(w) : kernel_matrix_exact(kernel, w);
  double chi = 0;
  int dof = 0;
  for (int i = 0; i < 8; ++i)
    for (int j = all_entries ? 0 : i + 1; j < 8; ++j) {  // a symmetric estimate: each pair once
      const double mean = sum(i, j) / reps;
      const double var = std::max(0.0, sum_sq(i, j) / reps - mean * mean) * reps / (reps - 1);
      if (var < 1e-24) {  // an entry no walk pair can reach (finite f): it must be exactly the exact value
        EXPECT_NEAR(mean, exact(i, j), 1e-12) << describe(kernel) << " at (" << i << "," << j << ")";
        continue;
      }
      chi += std::pow(mean - exact(i, j), 2) / (var / reps);
      ++dof;
    }
  const double critical = dof * std::pow(1 - 2.0 / (9 * dof) + 4.9 * std::sqrt(2.0 / (9 * dof)), 3);
  EXPECT_LT(chi, critical) << describe(kernel) << " over " << dof << " entries";
}
}  // namespace

TEST(Grf, PhiPhiTIsUnbiasedOffTheDiagonalForEveryNamedKernel) {
  KernelSpec k;
  k.kind = KernelKind::diffusion;
  k.beta = 1.0;
  expect_unbiased_off_diagonal(k, 0.4);
  k.kind = KernelKind::exp_adjacency;
  k.beta = 0.5;
  expect_unbiased_off_diagonal(k, 0.4);
  k.kind = KernelKind::regularized_laplacian;
  k.beta = 1.0;
  k.power = 2;
  expect_unbiased_off_diagonal(k, 0.4);
  k.kind = KernelKind::p_step;
  k.shift = 3;
  k.power = 2;
  expect_unbiased_off_diagonal(k, 0.4);
  k.kind = KernelKind::cosine;
  k.beta = 0.5;
  expect_unbiased_off_diagonal(k, 0.4);
  KernelSpec a;
  a.kind = KernelKind::alpha;
  a.coefficients = {1.0, 0.5, 0.25, 0.125};
  expect_unbiased_off_diagonal(a, 0.4);
}

TEST(Grf, AsymmetricAntitheticAndWeightedStepsStayUnbiased) {
  KernelSpec k;
  k.kind = KernelKind::diffusion;
  k.beta = 1.0;
  expect_unbiased_off_diagonal(k, 0.4, GrfEstimator::asymmetric);
  WalkOptions antithetic;
  antithetic.coupling = Coupling::antithetic;
  expect_unbiased_off_diagonal(k, 0.5, GrfEstimator::symmetric, antithetic);
  // Weighted steps on a weighted 8-node graph (a ring with chords, weights between 0.5 and 3).
  SharedTempFile weighted("weighted.txt", "0 1 0.5\n1 2 3\n2 3 1\n3 4 2\n4 5 0.5\n5 6 1.5\n6 7 1\n7 0 2.5\n0 4 1\n2 6 3\n1 5 0.7\n");
  WalkOptions weighted_steps;
  weighted_steps.step = StepRule::weighted;
  expect_unbiased_off_diagonal(k, 0.3, GrfEstimator::two_ensembles, weighted_steps, weighted.path());
  // Raw weights W = c*A (c*rho(A) < 1 keeps the regularized Laplacian series convergent).
  WalkOptions raw;
  raw.weights = WeightMode::raw;
  raw.scale = 0.1;
  KernelSpec reg;
  reg.kind = KernelKind::regularized_laplacian;
  reg.beta = 1.0;
  reg.power = 1;
  expect_unbiased_off_diagonal(reg, 0.3, GrfEstimator::symmetric, raw, weighted.path());
}

TEST(Grf, FixedLengthWalksAreUnbiasedForTheTruncatedSeries) {
  // Every walker makes exactly T = 3 hops (no halting, importance weight 1); the asymmetric estimate with
  // f = alpha is then unbiased for sum_{t<=3} alpha_t W^t, alone and with repelling packs. Same chi-square
  // test and failure probability (about 1e-6 per call) as above.
  KernelSpec truncated;
  truncated.kind = KernelKind::alpha;
  truncated.coefficients = {1.0, 0.5, 0.25, 0.125};
  WalkOptions fixed;
  fixed.fixed_length = true;
  expect_unbiased_off_diagonal(truncated, 0.5, GrfEstimator::asymmetric, fixed, "random:8:3:21", 3);
  fixed.coupling = Coupling::repelling;
  expect_unbiased_off_diagonal(truncated, 0.5, GrfEstimator::asymmetric, fixed, "random:8:3:21", 3);
}

TEST(Grf, ErrorShrinksLikeOneOverSqrtN) {
  // Mean squared relative Frobenius error of the unbiased two-ensemble estimate over 24 seeds at n = 8 and
  // n = 128 walkers. Its expectation scales like 1/n, a ratio of 16. Each mean is an average of 24 positive
  // terms whose spread is at most comparable to their mean, so each estimate has a relative standard error
  // of about 0.2; a ratio outside [6, 40] needs a deviation of more than 4 standard errors (p < 1e-4).
  const auto g = load_on(world(), "random:40:4:8", "block");
  const auto w = gather_dense_w(g, options(1, 0.5, 1, 1));
  const Eigen::MatrixXd exact = world().is_root() ? kernel_matrix_exact(diffusion(1.0), w) : Eigen::MatrixXd();
  double mse[2] = {0, 0};
  const std::int64_t ns[2] = {8, 128};
  for (int which = 0; which < 2; ++which)
    for (int r = 0; r < 24; ++r) {
      const auto run = compute_grf(g, diffusion(1.0), options(ns[which], 0.5, 40, 500 + std::uint64_t(r)),
                                   GrfEstimator::two_ensembles, quiet_log());
      const Eigen::MatrixXd est = dense_kernel_estimate(g, run);
      if (world().is_root()) mse[which] += std::pow(relative_frobenius_error(est, exact), 2) / 24;
    }
  world().broadcast(mse);
  const double ratio = mse[0] / mse[1];
  EXPECT_GT(ratio, 6.0) << mse[0] << " " << mse[1];
  EXPECT_LT(ratio, 40.0) << mse[0] << " " << mse[1];
}

TEST(Grf, EveryCouplingGivesBitwiseIdenticalRowsAtAnyRankCountAndPartition) {
  // Tiny batches and a tiny in-flight cap force walkers and repelling groups across ranks in many small
  // messages; the one-rank run is the reference.
  WalkLimits tiny;
  tiny.walker_batch = 3;
  tiny.deposit_batch = 2;
  tiny.max_walkers_in_flight = 5;
  for (const WalkOptions& o : every_coupling(options(8, 0.2, 20, 7))) {
    std::map<std::pair<std::int64_t, std::int64_t>, double> solo_rows;
    MPI_Comm solo_comm;
    MPI_Comm_split(MPI_COMM_WORLD, world().rank() == 0 ? 0 : MPI_UNDEFINED, 0, &solo_comm);
    if (world().rank() == 0) {
      const Communicator solo(solo_comm);
      const auto g1 = load_on(solo, "grid:9x7");
      const Log log(solo, true);
      solo_rows = phi_by_id(g1, compute_grf(g1, diffusion(1.0), o, GrfEstimator::symmetric, log).phi[0]);
      MPI_Comm_free(&solo_comm);
    }
    for (const std::string partition : {"block", "metis", "ptscotch"}) {
      const auto g = load_on(world(), "grid:9x7", partition);
      const auto all = phi_by_id(g, compute_grf(g, diffusion(1.0), o, GrfEstimator::symmetric, quiet_log(), tiny).phi[0]);
      int same = world().rank() == 0 ? (all == solo_rows ? 1 : 0) : 1;
      world().broadcast(same);
      EXPECT_EQ(same, 1) << coupling_name(o.coupling) << " " << partition;
    }
  }
}

TEST(Grf, PhiPhiTStaysUnbiasedUnderEveryCoupling) {
  // The chi-square test above (level 1e-6 per coupling), with p = 0.5: antithetic pairs then never halt
  // together, and the repelling groups split on the 3-regular-ish graph.
  for (const WalkOptions& o : every_coupling(WalkOptions{})) {
    if (o.coupling == Coupling::iid || o.coupling == Coupling::antithetic) continue;  // tested above
    SCOPED_TRACE(coupling_name(o.coupling));
    expect_unbiased_off_diagonal(diffusion(1.0), 0.5, GrfEstimator::symmetric, o);
  }
}

namespace {
// A weighted 8-node graph (a ring with chords, weights 0.5 to 3): degrees differ, so the combinatorial walk
// matrix has self-loops of several weights and one node (the largest degree) without one.
constexpr const char* kWeightedRing = "0 1 0.5\n1 2 3\n2 3 1\n3 4 2\n4 5 0.5\n5 6 1.5\n6 7 1\n7 0 2.5\n0 4 1\n2 6 3\n1 5 0.7\n";

// h(L) of L = D - A from the dense A, by L's own eigendecomposition (independent of the walk matrix).
Eigen::MatrixXd function_of_combinatorial_laplacian(const Eigen::MatrixXd& a, const std::function<double(double)>& h) {
  const Eigen::VectorXd degree = a.rowwise().sum();
  const Eigen::MatrixXd l = Eigen::MatrixXd(degree.asDiagonal()) - a;
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(l);
  Eigen::VectorXd values = eig.eigenvalues();
  for (Eigen::Index i = 0; i < values.size(); ++i) values(i) = h(values(i));
  return eig.eigenvectors() * values.asDiagonal() * eig.eigenvectors().transpose();
}
}  // namespace

TEST(Grf, CombinatorialWeightsAreUnbiasedForKernelsOfDMinusA) {
  // The chi-square test above (failure probability about 1e-6 per call) against exp(-beta (D - A)) and
  // (I + beta (D - A))^-1 computed from A in this test. d_max = 7 on this graph, so beta d_max = 1.4 and 0.7.
  // (With beta 0.22 in the exact kernel instead of 0.2 the statistic is about 1000-1500 against 82-136.)
  SharedTempFile weighted("combinatorial.txt", kWeightedRing);
  WalkOptions combinatorial;
  combinatorial.weights = WeightMode::combinatorial;
  KernelSpec heat;
  heat.kind = KernelKind::diffusion;
  heat.beta = 0.2;
  const auto exp_l = [](const Eigen::MatrixXd& a) { return function_of_combinatorial_laplacian(a, [](double l) { return std::exp(-0.2 * l); }); };
  expect_unbiased_off_diagonal(heat, 0.3, GrfEstimator::symmetric, combinatorial, weighted.path(), 60, exp_l);
  expect_unbiased_off_diagonal(heat, 0.3, GrfEstimator::asymmetric, combinatorial, weighted.path(), 60, exp_l);
  KernelSpec regularized;
  regularized.kind = KernelKind::regularized_laplacian;
  regularized.beta = 0.1;
  regularized.power = 1;
  const auto resolvent = [](const Eigen::MatrixXd& a) {
    return function_of_combinatorial_laplacian(a, [](double l) { return 1.0 / (1.0 + 0.1 * l); });
  };
  WalkOptions weighted_steps = combinatorial;
  weighted_steps.step = StepRule::weighted;
  expect_unbiased_off_diagonal(regularized, 0.3, GrfEstimator::two_ensembles, weighted_steps, weighted.path(), 80, resolvent);
}

TEST(Grf, CombinatorialRowsAreBitwiseIdenticalAtAnyRankCountAndPartition) {
  // As for every coupling above: the one-rank run is the reference; tiny batches force many small messages.
  SharedTempFile weighted("combinatorial_ranks.txt", kWeightedRing);
  WalkLimits tiny;
  tiny.walker_batch = 3;
  tiny.deposit_batch = 2;
  tiny.max_walkers_in_flight = 5;
  std::vector<WalkOptions> cases;
  for (const StepRule step : {StepRule::uniform, StepRule::weighted})
    for (const Coupling coupling : {Coupling::iid, Coupling::antithetic, Coupling::repelling}) {
      if (is_repelling(coupling) && step != StepRule::uniform) continue;
      WalkOptions o = options(8, 0.2, 20, 7);
      o.weights = WeightMode::combinatorial;
      o.step = step;
      o.coupling = coupling;
      cases.push_back(o);
    }
  for (const std::string graph : {weighted.path(), std::string("grid:9x7")})
    for (const WalkOptions& unbound : cases) {
      const std::string label = graph + " " + coupling_name(unbound.coupling) + (unbound.step == StepRule::weighted ? " weighted" : " uniform");
      std::map<std::pair<std::int64_t, std::int64_t>, double> solo_rows;
      MPI_Comm solo_comm;
      MPI_Comm_split(MPI_COMM_WORLD, world().rank() == 0 ? 0 : MPI_UNDEFINED, 0, &solo_comm);
      if (world().rank() == 0) {
        const Communicator solo(solo_comm);
        const auto g1 = load_on(solo, graph);
        WalkOptions o = unbound;
        KernelSpec k = diffusion(0.3);
        bind_combinatorial_laplacian(g1, o, k);
        const Log log(solo, true);
        solo_rows = phi_by_id(g1, compute_grf(g1, k, o, GrfEstimator::symmetric, log).phi[0]);
        MPI_Comm_free(&solo_comm);
      }
      for (const std::string partition : {"block", "metis", "ptscotch"}) {
        const auto g = load_on(world(), graph, partition);
        WalkOptions o = unbound;
        KernelSpec k = diffusion(0.3);
        bind_combinatorial_laplacian(g, o, k);
        const auto all = phi_by_id(g, compute_grf(g, k, o, GrfEstimator::symmetric, quiet_log(), tiny).phi[0]);
        int same = world().rank() == 0 ? (all == solo_rows ? 1 : 0) : 1;
        world().broadcast(same);
        EXPECT_EQ(same, 1) << label << " " << partition;
      }
    }
}
