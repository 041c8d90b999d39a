#include "graphrf/walks/pagerank.hpp"

#include <algorithm>
#include <cmath>

#include "graphrf/mpi/host_alltoallv.hpp"

namespace graphrf {

namespace {
struct Contribution {
  std::int64_t target;
  double value;
};
struct Ranked {  // ascending order = descending rank, ties by canonical index
  double minus_rank;
  std::int64_t canonical;
  bool operator<(const Ranked& o) const {
    return minus_rank != o.minus_rank ? minus_rank < o.minus_rank : canonical < o.canonical;
  }
};
}  // namespace

PageRankExact pagerank_exact(const DistributedGraph& g, double p_halt, StepRule step, double tolerance, int max_iterations) {
  const Communicator& comm = *g.comm;
  const auto n_local = static_cast<size_t>(g.n_local());
  const double n = static_cast<double>(g.n_global()), keep = 1.0 - p_halt;
  const auto p = static_cast<size_t>(comm.size());
  // Arcs grouped by the owner of their target, once: each iteration then sends (target, x_i / d_i) pairs.
  Counts counts(p, 0);
  for (auto c : g.col) ++counts[static_cast<size_t>(g.owner(c))];
  std::vector<std::int64_t> pos(p + 1, 0);
  for (size_t r = 0; r < p; ++r) pos[r + 1] = pos[r] + counts[r];
  std::vector<std::int64_t> slot(g.col.size());
  for (size_t k = 0; k < g.col.size(); ++k) slot[k] = pos[static_cast<size_t>(g.owner(g.col[k]))]++;

  // Out-weight of each row: its arc count for uniform steps, the sum of its arc weights for weighted ones.
  const bool weighted = step == StepRule::weighted;
  std::vector<double> out_weight(n_local, 0.0);
  for (size_t i = 0; i < n_local; ++i)
    for (auto k = g.row_ptr[i]; k < g.row_ptr[i + 1]; ++k) out_weight[i] += weighted ? g.weight[static_cast<size_t>(k)] : 1.0;

  PageRankExact out;
  std::vector<double> x(n_local, 1.0 / n), next(n_local);
  std::vector<Contribution> send(g.col.size());
  for (out.iterations = 1; out.iterations <= max_iterations; ++out.iterations) {
    double dangling = 0;
    for (size_t i = 0; i < n_local; ++i) {
      const auto begin = g.row_ptr[i], end = g.row_ptr[i + 1];
      if (begin == end) dangling += x[i];
      for (auto k = begin; k < end; ++k) {
        const double w = weighted ? g.weight[static_cast<size_t>(k)] : 1.0;
        send[static_cast<size_t>(slot[static_cast<size_t>(k)])] = {g.col[static_cast<size_t>(k)], x[i] * w / out_weight[i]};
      }
    }
    auto got = host_alltoallv(comm, g.hosts.get(), send, counts);  // host peers' contributions through shared memory
    // Sum each node's in-contributions in ascending order of value: the same bits whatever order they came in.
    std::sort(got.begin(), got.end(), [](const Contribution& a, const Contribution& b) {
      return a.target != b.target ? a.target < b.target : a.value < b.value;
    });
    const double base = (p_halt + keep * comm.sum(dangling)) / n;
    std::fill(next.begin(), next.end(), 0.0);
    for (const auto& c : got) next[static_cast<size_t>(c.target - g.first())] += c.value;
    double change = 0;
    for (size_t i = 0; i < n_local; ++i) {
      next[i] = base + keep * next[i];
      change += std::abs(next[i] - x[i]);
    }
    x.swap(next);
    out.error_bound = keep / p_halt * comm.sum(change);
    if (out.error_bound < tolerance) break;
  }
  out.iterations = std::min(out.iterations, max_iterations);
  out.rank = std::move(x);
  return out;
}

PageRankEstimate pagerank_by_walks(const DistributedGraph& g, WalkOptions walk, const Log& log, WalkLimits limits) {
  walk.teleport_dangling = true;
  limits.count_endpoints = true;
  WalkResult result = run_walks(g, walk, log, limits);
  PageRankEstimate out;
  out.walks = result.stats;
  const double scale = 1.0 / (static_cast<double>(g.n_global()) * static_cast<double>(walk.walkers));
  out.rank.resize(result.endpoint_counts.size());
  for (size_t i = 0; i < out.rank.size(); ++i) out.rank[i] = static_cast<double>(result.endpoint_counts[i]) * scale;
  return out;
}

std::int64_t pagerank_default_max_length(double p_halt) {
  return static_cast<std::int64_t>(std::ceil(std::log(1e-12) / std::log1p(-p_halt)));
}

bool has_arc_weights(const DistributedGraph& g) {
  bool weighted = false;
  for (const double w : g.weight) weighted = weighted || w != 1.0;
  return g.comm->max(static_cast<std::int64_t>(weighted)) > 0;
}

PageRankComparison compare_pagerank(const DistributedGraph& g, const std::vector<double>& estimate,
                                    const std::vector<double>& exact, std::int64_t top) {
  const Communicator& comm = *g.comm;
  double l1 = 0, max_rel = 0;
  for (size_t i = 0; i < exact.size(); ++i) {
    l1 += std::abs(estimate[i] - exact[i]);
    max_rel = std::max(max_rel, std::abs(estimate[i] - exact[i]) / exact[i]);
  }
  PageRankComparison out;
  out.l1_error = comm.sum(l1);
  out.max_relative_error = comm.max(max_rel);
  // Top nodes: each rank offers its own best `top` (value, canonical index); rank 0 picks the global best.
  auto best = [&](const std::vector<double>& rank) {
    std::vector<Ranked> local;
    for (size_t i = 0; i < rank.size(); ++i) local.push_back({-rank[i], g.canonical_index[i]});
    const auto keep = std::min<size_t>(local.size(), static_cast<size_t>(top));
    std::partial_sort(local.begin(), local.begin() + static_cast<std::ptrdiff_t>(keep), local.end());
    local.resize(keep);
    Counts counts(static_cast<size_t>(comm.size()), 0);
    counts[0] = static_cast<std::int64_t>(local.size());
    auto all = comm.alltoallv(local, counts);
    std::sort(all.begin(), all.end());
    all.resize(std::min<size_t>(all.size(), static_cast<size_t>(top)));
    std::vector<std::int64_t> ids;
    for (const auto& r : all) ids.push_back(r.canonical);
    std::sort(ids.begin(), ids.end());
    return ids;
  };
  const auto a = best(estimate), b = best(exact);
  std::vector<std::int64_t> shared;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(shared));
  out.top_overlap = static_cast<std::int64_t>(shared.size());
  out.top_size = static_cast<std::int64_t>(b.size());
  comm.broadcast(out.top_overlap);
  comm.broadcast(out.top_size);
  return out;
}

}  // namespace graphrf
