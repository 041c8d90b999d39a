#include "graphrf/grf/local_grf.hpp"

#include <algorithm>
#include <vector>

#include "graphrf/core/error.hpp"
#include "graphrf/walks/walk_step.hpp"

namespace graphrf {

namespace {

// Arrivals of a pack: `count` walkers at one column after `step` hops, each with `load`.
struct Visit {
  std::int32_t step;
  std::int32_t count;
  double load;
};

// One row's visits, bucketed by column: each visit is linked into its column's list as it arrives, so the row
// is summed without sorting the visits, only the (fewer) distinct columns. Scratch arrays span the graph's
// nodes and are cleared column by column after each row.
class RowAccumulator {
 public:
  explicit RowAccumulator(std::int64_t n) : head_(static_cast<size_t>(n), -1) {}

  void add(std::int64_t col, std::int64_t step, double load, std::int64_t count) {
    auto& head = head_[static_cast<size_t>(col)];
    if (head < 0) columns_.push_back(col);
    visits_.push_back({static_cast<std::int32_t>(step), static_cast<std::int32_t>(count), load});
    next_.push_back(head);
    head = static_cast<std::int32_t>(visits_.size() - 1);
  }

  // The engine's row: per column (ascending), per step (ascending) the sum of the loads in ascending order
  // (a pack of c walkers counts c times), times 1/n, then f_t-weighted over lengths. Clears the row.
  void append_to(SparseRows& phi, std::span<const double> f, std::int64_t walkers) {
    std::sort(columns_.begin(), columns_.end());
    const double inv_n = 1.0 / static_cast<double>(walkers);
    for (const std::int64_t col : columns_) {
      auto& head = head_[static_cast<size_t>(col)];
      same_column_.clear();
      for (std::int32_t k = head; k >= 0; k = next_[static_cast<size_t>(k)]) same_column_.push_back(visits_[static_cast<size_t>(k)]);
      head = -1;
      if (same_column_.size() > 1)
        std::sort(same_column_.begin(), same_column_.end(), [](const Visit& a, const Visit& b) {
          return a.step != b.step ? a.step < b.step : a.load < b.load;
        });
      double row_value = 0;
      for (size_t k = 0; k < same_column_.size();) {
        const std::int32_t step = same_column_[k].step;
        double sum = 0;
        for (; k < same_column_.size() && same_column_[k].step == step; ++k)
          for (std::int32_t r = 0; r < same_column_[k].count; ++r) sum += same_column_[k].load;
        if (static_cast<size_t>(step) < f.size()) row_value += f[static_cast<size_t>(step)] * (sum * inv_n);
      }
      phi.col.push_back(col);
      phi.value.push_back(row_value);
    }
    phi.indptr.push_back(static_cast<std::int64_t>(phi.col.size()));
    columns_.clear();
    visits_.clear();
    next_.clear();
  }

 private:
  std::vector<std::int32_t> head_, next_;
  std::vector<std::int64_t> columns_;
  std::vector<Visit> visits_, same_column_;
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
      : g_(g), o_(o), f_(f), stats_(stats), factor_(g.col.size()), row_(g.n()) {
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
      if (is_repelling(o_.coupling)) walk_packs(s);
      else walk_independently(s);
      stats_.walkers += o_.walkers;
      row_.add(s, 0, static_cast<double>(o_.walkers), 1);  // M_0 = I: the n unit loads, summed exactly
      row_.append_to(phi, f_, o_.walkers);
      if (s == 0) reserve_like_first_row(phi);
    }
    return phi;
  }

 private:
  // Rows of a frame have similar lengths: reserve for all of them from the first one (plus a quarter).
  void reserve_like_first_row(SparseRows& phi) const {
    const auto guess = static_cast<size_t>(phi.indptr.back()) * static_cast<size_t>(g_.n()) * 5 / 4;
    phi.col.reserve(guess);
    phi.value.reserve(guess);
  }

  void walk_independently(std::int64_t s) {
    const std::int64_t id = g_.id[static_cast<size_t>(s)];
    for (std::int64_t w = 0; w < o_.walkers; ++w) {
      HopBlocks cache;
      std::int64_t at = s, step = 0;
      double load = 1.0;
      for (;;) {
        if (step > 0) row_.add(at, step, load, 1);
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

  // A pack arriving at `at` after `step` hops: its visit is deposited now; it is kept for walking unless it
  // has made its last hop.
  void arrive(std::int64_t at, double load, std::int64_t step, size_t first, size_t count) {
    row_.add(at, step, load, static_cast<std::int64_t>(count));
    if (step == o_.max_length) stats_.truncated += static_cast<std::int64_t>(count);
    else stack_.push_back({at, load, step, first, count});
  }

  void walk_packs(std::int64_t s) {
    const std::int64_t id = g_.id[static_cast<size_t>(s)];
    pool_.clear();
    for (std::int64_t w = 0; w < o_.walkers; ++w) pool_.push_back(w);
    stack_.clear();
    if (o_.max_length == 0) stats_.truncated += o_.walkers;
    else stack_.push_back({s, 1.0, 0, 0, static_cast<size_t>(o_.walkers)});
    while (!stack_.empty()) {
      const Pack p = stack_.back();
      stack_.pop_back();
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
        arrive(g_.col[arc], p.load * factor_[arc], p.step + 1, p.first, 1);
        continue;
      }
      // The walkers that move: under fixed lengths all of the pack (its own pool range), else those that do not halt.
      size_t movers = p.first, c = p.count;
      if (!o_.fixed_length) {
        movers = pool_.size();
        for (size_t k = 0; k < p.count; ++k) {
          const std::int64_t w = pool_[p.first + k];
          if (!draw_hop(o_, id, w, p.step).halt) pool_.push_back(w);
        }
        c = pool_.size() - movers;
      }
      if (c == 0) continue;
      if (deg == 0) {
        stats_.dead_ends += static_cast<std::int64_t>(c);
        continue;
      }
      offsets_.resize(c);
      repelling_offsets(o_, id, pool_[p.first], p.step, static_cast<std::int64_t>(c), deg, offsets_.data());
      stats_.hops += static_cast<std::int64_t>(c);
      // Child packs: walkers with the same offset (hence the same destination), in ascending walker order.
      if (static_cast<std::int64_t>(c) <= deg) {  // stratified offsets are all distinct: every walker leads a pack of its own
        for (size_t k = 0; k < c; ++k) {
          const auto arc = static_cast<size_t>(begin + offsets_[k]);
          arrive(g_.col[arc], p.load * factor_[arc], p.step + 1, movers + k, 1);
        }
        continue;
      }
      counts_.assign(static_cast<size_t>(deg) + 1, 0);  // a stable counting sort by offset
      for (size_t k = 0; k < c; ++k) ++counts_[static_cast<size_t>(offsets_[k]) + 1];
      for (size_t o = 1; o < counts_.size(); ++o) counts_[o] += counts_[o - 1];
      const size_t first = pool_.size();
      pool_.resize(first + c);
      for (size_t k = 0; k < c; ++k) pool_[first + counts_[static_cast<size_t>(offsets_[k])]++] = pool_[movers + k];
      // counts_[o] is now the end of offset o's walkers, and counts_[o - 1] (0 for o = 0) their start.
      for (std::int64_t o = 0; o < deg; ++o) {
        const size_t start = o == 0 ? 0 : counts_[static_cast<size_t>(o) - 1], end = counts_[static_cast<size_t>(o)];
        if (end == start) continue;
        const auto arc = static_cast<size_t>(begin + o);
        arrive(g_.col[arc], p.load * factor_[arc], p.step + 1, first + start, end - start);
      }
    }
  }

  const LocalGraph& g_;
  const WalkOptions& o_;
  std::span<const double> f_;
  LocalWalkStats& stats_;
  std::vector<double> factor_;
  RowAccumulator row_;
  std::vector<std::int64_t> pool_, offsets_;
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
