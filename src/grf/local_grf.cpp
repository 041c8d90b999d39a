#include "graphrf/grf/local_grf.hpp"

#include <algorithm>
#include <vector>

#include "graphrf/core/error.hpp"
#include "graphrf/walks/walk_step.hpp"

namespace graphrf {

namespace {

// Arrivals of a pack: `count` walkers at `col` after `step` hops, each with `load`.
struct Visit {
  std::int64_t col;
  std::int64_t step;
  double load;
  std::int64_t count;
};

struct Pack {
  std::int64_t at;
  double load;
  std::int64_t step;
  size_t first, count;  // its walker ids: pool[first .. first + count), ascending
};

class LocalWalker {
 public:
  LocalWalker(const LocalGraph& g, const WalkOptions& o, std::span<const double> f, LocalWalkStats& stats)
      : g_(g), o_(o), f_(f), stats_(stats), factor_(g.col.size()) {
    const double keep = 1.0 - o.halt_probability();
    for (std::int64_t i = 0; i < g.n(); ++i) {
      const auto begin = static_cast<size_t>(g.row_ptr[static_cast<size_t>(i)]);
      const auto end = static_cast<size_t>(g.row_ptr[static_cast<size_t>(i) + 1]);
      const double deg = static_cast<double>(end - begin);
      for (size_t k = begin; k < end; ++k)  // the engine's factor, so that loads agree to the last bit
        factor_[k] = hop_load_factor(o, g.normalized_weight[k], g.weight[k], deg, g.degree[static_cast<size_t>(i)], keep);
    }
  }

  SparseRows run() {
    SparseRows phi;
    phi.indptr.reserve(static_cast<size_t>(g_.n()) + 1);
    phi.indptr.push_back(0);
    for (std::int64_t s = 0; s < g_.n(); ++s) {
      visits_.clear();
      if (is_repelling(o_.coupling)) walk_packs(s);
      else walk_independently(s);
      stats_.walkers += o_.walkers;
      append_row(s, phi);
    }
    return phi;
  }

 private:
  void walk_independently(std::int64_t s) {
    const std::int64_t id = g_.id[static_cast<size_t>(s)];
    for (std::int64_t w = 0; w < o_.walkers; ++w) {
      HopBlocks cache;
      std::int64_t at = s, step = 0;
      double load = 1.0;
      for (;;) {
        if (step > 0) visits_.push_back({at, step, load, 1});
        if (step == o_.max_length) {
          ++stats_.truncated;
          break;
        }
        const WalkDraw draw = draw_hop(o_, id, w, step, cache);
        if (draw.halt) break;
        const std::int64_t begin = g_.row_ptr[static_cast<size_t>(at)], deg = g_.row_ptr[static_cast<size_t>(at) + 1] - begin;
        if (deg == 0) {
          ++stats_.dead_ends;
          break;
        }
        const auto k = static_cast<size_t>(begin) + uniform_below(draw.choice, static_cast<std::uint64_t>(deg));
        load *= factor_[k];
        at = g_.col[k];
        ++step;
        ++stats_.hops;
      }
    }
  }

  void walk_packs(std::int64_t s) {
    const std::int64_t id = g_.id[static_cast<size_t>(s)];
    pool_.clear();
    for (std::int64_t w = 0; w < o_.walkers; ++w) pool_.push_back(w);
    stack_.clear();
    stack_.push_back({s, 1.0, 0, 0, static_cast<size_t>(o_.walkers)});
    while (!stack_.empty()) {
      const Pack p = stack_.back();
      stack_.pop_back();
      if (p.step > 0) visits_.push_back({p.at, p.step, p.load, static_cast<std::int64_t>(p.count)});
      if (p.step == o_.max_length) {
        stats_.truncated += static_cast<std::int64_t>(p.count);
        continue;
      }
      const std::int64_t begin = g_.row_ptr[static_cast<size_t>(p.at)], deg = g_.row_ptr[static_cast<size_t>(p.at) + 1] - begin;
      if (p.count == 1) {  // alone: an i.i.d. step, as the engine's lanes take it (walk_engine.hpp)
        const WalkDraw draw = draw_hop(o_, id, pool_[p.first], p.step);
        if (draw.halt) continue;
        if (deg == 0) {
          ++stats_.dead_ends;
          continue;
        }
        const auto arc = static_cast<size_t>(begin) + uniform_below(draw.choice, static_cast<std::uint64_t>(deg));
        ++stats_.hops;
        stack_.push_back({g_.col[arc], p.load * factor_[arc], p.step + 1, p.first, 1});
        continue;
      }
      movers_.clear();
      for (size_t k = 0; k < p.count; ++k) {
        const std::int64_t w = pool_[p.first + k];
        if (o_.fixed_length || !draw_hop(o_, id, w, p.step).halt) movers_.push_back(w);
      }
      const auto c = static_cast<std::int64_t>(movers_.size());
      if (c == 0) continue;
      if (deg == 0) {
        stats_.dead_ends += c;
        continue;
      }
      offsets_.resize(static_cast<size_t>(c));
      repelling_offsets(o_, id, pool_[p.first], p.step, c, deg, offsets_.data());
      stats_.hops += c;
      // Child packs: walkers with the same offset (hence the same destination), in ascending walker order.
      if (c <= deg) {  // stratified offsets are all distinct: every walker leads a pack of its own
        for (std::int64_t k = 0; k < c; ++k) {
          const auto arc = static_cast<size_t>(begin + offsets_[size_t(k)]);
          pool_.push_back(movers_[size_t(k)]);
          stack_.push_back({g_.col[arc], p.load * factor_[arc], p.step + 1, pool_.size() - 1, 1});
        }
        continue;
      }
      counts_.assign(static_cast<size_t>(deg) + 1, 0);  // a stable counting sort by offset
      for (std::int64_t k = 0; k < c; ++k) ++counts_[static_cast<size_t>(offsets_[size_t(k)]) + 1];
      for (size_t o = 1; o < counts_.size(); ++o) counts_[o] += counts_[o - 1];
      const size_t first = pool_.size();
      pool_.resize(first + static_cast<size_t>(c));
      for (std::int64_t k = 0; k < c; ++k)
        pool_[first + counts_[static_cast<size_t>(offsets_[size_t(k)])]++] = movers_[size_t(k)];
      // counts_[o] is now the end of offset o's walkers, and counts_[o - 1] (0 for o = 0) their start.
      for (std::int64_t o = 0; o < deg; ++o) {
        const size_t start = o == 0 ? 0 : counts_[static_cast<size_t>(o) - 1], end = counts_[static_cast<size_t>(o)];
        if (end == start) continue;
        const auto arc = static_cast<size_t>(begin + o);
        stack_.push_back({g_.col[arc], p.load * factor_[arc], p.step + 1, first + start, end - start});
      }
    }
  }

  // The engine's row: (column, step) sums in ascending load order, times 1/n; then f_t-weighted over lengths.
  void append_row(std::int64_t s, SparseRows& phi) {
    visits_.push_back({s, 0, static_cast<double>(o_.walkers), 1});  // M_0 = I: the n unit loads, summed exactly
    std::sort(visits_.begin(), visits_.end(), [](const Visit& a, const Visit& b) {
      if (a.col != b.col) return a.col < b.col;
      if (a.step != b.step) return a.step < b.step;
      return a.load < b.load;
    });
    const double inv_n = 1.0 / static_cast<double>(o_.walkers);
    for (size_t k = 0; k < visits_.size();) {
      const std::int64_t col = visits_[k].col;
      double row_value = 0;
      while (k < visits_.size() && visits_[k].col == col) {
        const std::int64_t step = visits_[k].step;
        double sum = 0;
        for (; k < visits_.size() && visits_[k].col == col && visits_[k].step == step; ++k)
          for (std::int64_t r = 0; r < visits_[k].count; ++r) sum += visits_[k].load;
        if (static_cast<size_t>(step) < f_.size()) row_value += f_[static_cast<size_t>(step)] * (sum * inv_n);
      }
      phi.col.push_back(col);
      phi.value.push_back(row_value);
    }
    phi.indptr.push_back(static_cast<std::int64_t>(phi.col.size()));
  }

  const LocalGraph& g_;
  const WalkOptions& o_;
  std::span<const double> f_;
  LocalWalkStats& stats_;
  std::vector<double> factor_;
  std::vector<Visit> visits_;
  std::vector<std::int64_t> pool_, movers_, offsets_;
  std::vector<size_t> counts_;
  std::vector<Pack> stack_;
};

}  // namespace

void check_local_walk_options(const WalkOptions& walk) {
  if (walk.coupling != Coupling::iid && walk.coupling != Coupling::repelling)
    throw InputError(std::string("--coupling ") + coupling_name(walk.coupling) +
                     ": the frames path walks iid or repelling walkers (use one graph per run for the others)");
  if (walk.step != StepRule::uniform) throw InputError("--step weighted: the frames path takes uniform steps only");
  if (walk.weights == WeightMode::combinatorial)  // its rows have no self-loops
    throw InputError("--weights combinatorial: the frames path uses the normalised adjacency");
  if (walk.teleport_dangling) throw InputError("the frames path has no teleporting walkers");
  if (walk.start_every != 1) throw InputError("--start-every: the frames path starts walkers at every node");
  if (walk.quantile >= 0) throw InputError("the frames path does not draw quantile walk lengths");
}

SparseRows local_grf(const LocalGraph& g, const WalkOptions& walk, std::span<const double> f, LocalWalkStats& stats) {
  check_local_walk_options(walk);
  return LocalWalker(g, walk, f, stats).run();
}

}  // namespace graphrf
