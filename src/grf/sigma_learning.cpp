#include "graphrf/grf/sigma_learning.hpp"

#include <Eigen/Sparse>
#include <algorithm>
#include <numeric>

#include "graphrf/core/counter_rng.hpp"
#include "graphrf/core/error.hpp"
#include "graphrf/core/timer.hpp"
#include "graphrf/graph/canonical_order.hpp"
#include "graphrf/grf/grf_pipeline.hpp"
#include "graphrf/walks/linear_assignment.hpp"
#include "graphrf/walks/walk_engine.hpp"

namespace graphrf {

namespace {

struct FeatureEntry {
  std::int64_t start;  // canonical index of the start node
  std::int64_t col;    // canonical index of the column
  double value;
};

// Keeps every deposit it is handed (the walk end points of sigma learning's PageRank target: one per walk).
class EndpointCollector final : public DepositSink {
 public:
  void add_visits(std::uint32_t, std::span<const Deposit> visits) override {
    deposits.insert(deposits.end(), visits.begin(), visits.end());
  }
  void walkers_finished(std::uint32_t, std::int64_t, std::int64_t) override {}
  bool can_start_row(std::int64_t) const override { return true; }

  std::vector<Deposit> deposits;
};

bool sampled(const DistributedGraph& g, std::int64_t local, std::int64_t every) {
  return g.canonical_index[static_cast<size_t>(local)] % every == 0;
}

// The sampled rows of one quantile's features on this rank.
std::vector<FeatureEntry> quantile_rows(const DistributedGraph& g, const SigmaLearningOptions& o, int q, const Log& log) {
  WalkOptions walk = o.walk;
  walk.coupling = Coupling::iid;
  walk.quantile = q;
  walk.quantile_order = o.order;
  walk.walkers = o.samples;
  walk.start_every = o.start_every;
  std::vector<FeatureEntry> rows;
  const CanonicalOrder order(g);  // columns by canonical index: the dot products then sum in a partition-free order
  auto canonical_columns = [&] {
    std::vector<std::int64_t> cols;
    for (const auto& e : rows) cols.push_back(e.col);
    const auto canonical = order.to_canonical(cols);
    for (size_t k = 0; k < rows.size(); ++k) rows[k].col = canonical[k];
  };
  if (o.target == SigmaTarget::kernel) {
    const GrfRun run = compute_grf(g, o.kernel, walk, GrfEstimator::symmetric, log);
    const SparseRows& phi = run.phi[0];
    for (std::int64_t i = 0; i < phi.n_local(); ++i) {
      if (!sampled(g, i, o.start_every)) continue;
      for (auto k = phi.indptr[static_cast<size_t>(i)]; k < phi.indptr[static_cast<size_t>(i) + 1]; ++k)
        rows.push_back({g.canonical_index[static_cast<size_t>(i)], phi.col[static_cast<size_t>(k)], phi.value[static_cast<size_t>(k)]});
    }
    canonical_columns();
    return rows;
  }
  // PageRank: the end points of the S walks, as a distribution per start node.
  walk.step = StepRule::uniform;
  walk.teleport_dangling = true;
  WalkLimits limits;
  limits.deposit_endpoints = true;
  EndpointCollector endpoints;
  run_walks(g, walk, log, limits, &endpoints);
  auto& d = endpoints.deposits;
  std::sort(d.begin(), d.end(), [](const Deposit& a, const Deposit& b) { return a.row != b.row ? a.row < b.row : a.col < b.col; });
  const double share = 1.0 / static_cast<double>(o.samples);
  for (size_t k = 0; k < d.size();) {
    size_t e = k;
    while (e < d.size() && d[e].row == d[k].row && d[e].col == d[k].col) ++e;
    rows.push_back({g.canonical_index[d[k].row], d[k].col, static_cast<double>(e - k) * share});
    k = e;
  }
  canonical_columns();
  return rows;
}

}  // namespace

SigmaTarget parse_sigma_target(const std::string& name) {
  if (name == "kernel") return SigmaTarget::kernel;
  if (name == "pagerank") return SigmaTarget::pagerank;
  throw InputError("--target: expected kernel or pagerank (got '" + name + "')");
}

SigmaLearningResult learn_sigma(const DistributedGraph& g, const SigmaLearningOptions& o, const Log& log) {
  const Communicator& comm = *g.comm;
  const int m = o.order;
  SigmaLearningResult out;
  Timer walk_timer;
  // Rank 0 collects every quantile's sampled rows.
  std::vector<std::vector<FeatureEntry>> by_quantile(static_cast<size_t>(m));
  const Log quiet(comm, true);
  for (int q = 0; q < m; ++q) {
    const auto local = quantile_rows(g, o, q, q == 0 ? log : quiet);
    Counts counts(static_cast<size_t>(comm.size()), 0);
    counts[0] = static_cast<std::int64_t>(local.size());
    by_quantile[static_cast<size_t>(q)] = comm.alltoallv(local, counts);
  }
  out.walk_seconds = walk_timer.seconds();
  std::int64_t sampled_here = 0;
  for (std::int64_t i = 0; i < g.n_local(); ++i) sampled_here += sampled(g, i, o.start_every);
  out.start_nodes = comm.sum(sampled_here);

  Timer cost_timer;
  out.cost.assign(static_cast<size_t>(m * m), 0.0);
  if (comm.is_root()) {
    // Sample rows numbered by canonical index order.
    std::vector<std::int64_t> starts;
    for (const auto& rows : by_quantile)
      for (const auto& e : rows) starts.push_back(e.start);
    std::sort(starts.begin(), starts.end());
    starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
    const auto s = static_cast<Eigen::Index>(starts.size());
    using Sparse = Eigen::SparseMatrix<double, Eigen::RowMajor>;
    std::vector<Sparse> x(static_cast<size_t>(m), Sparse(s, g.n_global()));
    for (int q = 0; q < m; ++q) {
      std::vector<Eigen::Triplet<double>> t;
      for (const auto& e : by_quantile[static_cast<size_t>(q)])
        t.emplace_back(static_cast<Eigen::Index>(std::lower_bound(starts.begin(), starts.end(), e.start) - starts.begin()),
                       static_cast<Eigen::Index>(e.col), e.value);
      x[static_cast<size_t>(q)].setFromTriplets(t.begin(), t.end());
    }
    // dots[q][r] = X_q X_r^T: all pairwise inner products of the sampled rows.
    std::vector<std::vector<Eigen::MatrixXd>> dots(static_cast<size_t>(m), std::vector<Eigen::MatrixXd>(static_cast<size_t>(m)));
    for (int q = 0; q < m; ++q)
      for (int r = q; r < m; ++r) {
        dots[size_t(q)][size_t(r)] = Eigen::MatrixXd(x[size_t(q)] * Sparse(x[size_t(r)].transpose()));
        // X_q X_q^T is its own transpose; assigning it to itself would alias (Eigen asserts on that).
        if (r != q) dots[size_t(r)][size_t(q)] = dots[size_t(q)][size_t(r)].transpose();
      }
    for (int q = 0; q < m; ++q)
      for (int r = 0; r < m; ++r) {
        double c = 0;
        if (o.target == SigmaTarget::pagerank) {
          c = dots[size_t(q)][size_t(r)].diagonal().sum() / static_cast<double>(std::max<Eigen::Index>(s, 1));
        } else {
          const Eigen::MatrixXd pair = dots[size_t(q)][size_t(q)] + dots[size_t(q)][size_t(r)] +
                                       dots[size_t(r)][size_t(q)] + dots[size_t(r)][size_t(r)];
          const double all = pair.array().square().sum(), diagonal = pair.diagonal().array().square().sum();
          c = s > 1 ? (all - diagonal) / static_cast<double>(s * (s - 1)) : 0.0;
        }
        out.cost[static_cast<size_t>(q * m + r)] = c;
      }
  }
  comm.broadcast(out.cost);
  out.cost_seconds = comm.max(cost_timer.seconds());
  Timer solve_timer;
  out.sigma = solve_linear_assignment(out.cost, m);
  out.solve_seconds = comm.max(solve_timer.seconds());
  std::vector<int> identity(static_cast<size_t>(m));
  std::iota(identity.begin(), identity.end(), 0);
  out.random = identity;
  for (int k = m - 1; k > 0; --k) {  // Fisher-Yates, keyed by the seed
    const auto w = philox_block(o.walk.seed, RngDomain::walk_length, ~std::uint64_t{0}, static_cast<std::uint64_t>(k));
    std::swap(out.random[static_cast<size_t>(k)], out.random[uniform_below(w[0], static_cast<std::uint64_t>(k) + 1)]);
  }
  out.cost_sigma = assignment_cost(out.cost, out.sigma);
  out.cost_identity = assignment_cost(out.cost, identity);
  out.cost_random = assignment_cost(out.cost, out.random);
  out.cost_random_mean = std::accumulate(out.cost.begin(), out.cost.end(), 0.0) / m;
  return out;
}

}  // namespace graphrf
