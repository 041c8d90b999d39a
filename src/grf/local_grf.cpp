#include "graphrf/grf/local_grf.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

#include "graphrf/core/error.hpp"
#include "graphrf/walks/load_factors.hpp"
#include "graphrf/walks/repelling_packs.hpp"
#include "graphrf/walks/walk_hop.hpp"

namespace graphrf {

namespace {

// One row being summed: a dense accumulator over the graph's nodes, plus the columns touched so far in the
// order the walks first reached them (the attention pass does not need them sorted). A visit adds
// f_t * count * load; the row is scaled by 1/n when it is appended. The visits enter in walk order, which
// depends only on the graph and the seed, so a row is the same on every run; it may differ from the
// distributed engine's in the last bits (that engine sums each entry's visits in (step, load) order, which
// costs a sort per row and was half of a frame's walk time).
class RowAccumulator {
 public:
  explicit RowAccumulator(std::int64_t n) : value_(static_cast<size_t>(n), 0.0), touched_(static_cast<size_t>(n), 0) {}

  void add(std::int64_t col, double weighted_load) {
    const auto c = static_cast<size_t>(col);
    if (!touched_[c]) {
      touched_[c] = 1;
      columns_.push_back(col);
    }
    value_[c] += weighted_load;
  }

  void append_to(SparseRows& phi, double scale) {
    for (const std::int64_t col : columns_) {
      const auto c = static_cast<size_t>(col);
      phi.col.push_back(col);
      phi.value.push_back(value_[c] * scale);
      value_[c] = 0.0;
      touched_[c] = 0;
    }
    phi.indptr.push_back(static_cast<std::int64_t>(phi.col.size()));
    columns_.clear();
  }

 private:
  std::vector<double> value_;
  std::vector<std::uint8_t> touched_;
  std::vector<std::int64_t> columns_;
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
      : g_(g), o_(o), iid_(o.halt_probability()), f_(f.begin(), f.end()), stats_(stats), arcs_(g.col.size()), row_(g.n()) {
    f_.resize(static_cast<size_t>(o.max_length) + 1, 0.0);  // f_t = 0 beyond f's length: no bounds test per visit
    for (std::int64_t i = 0; i < g.n(); ++i) {
      const auto begin = static_cast<size_t>(g.row_ptr[static_cast<size_t>(i)]);
      const auto end = static_cast<size_t>(g.row_ptr[static_cast<size_t>(i) + 1]);
      const double deg = static_cast<double>(end - begin);
      for (size_t k = begin; k < end; ++k)
        arcs_[k] = {hop_load_factor(o, g.normalized_weight[k], g.weight[k], deg, g.degree[static_cast<size_t>(i)], 1.0), g.col[k]};
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
      deposit(s, 0, static_cast<double>(o_.walkers), 1);  // M_0 = I: the n unit loads
      row_.append_to(phi, 1.0 / static_cast<double>(o_.walkers));
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
    const StartNodeStreams root(o_, id);  // one Philox block for the node's walkers
    for (std::int64_t w = 0; w < o_.walkers; ++w) {
      WalkerDraws cache;
      cache.stream = root.walker(w);
      std::int64_t at = s, step = 0;
      double load = 1.0;
      for (;;) {
        if (step > 0) deposit(at, step, load, 1);
        if (step == o_.max_length) {
          ++stats_.truncated;
          break;
        }
        const WalkDraw draw = draw_hop(o_, iid_, id, w, step, cache);
        if (draw.halt) break;
        const std::int64_t begin = g_.row_ptr[static_cast<size_t>(at)], deg = g_.row_ptr[static_cast<size_t>(at) + 1] - begin;
        if (deg == 0) {
          ++stats_.dead_ends;
          break;
        }
        const auto k = static_cast<size_t>(begin) + uniform_below(draw.choice, static_cast<std::uint64_t>(deg));
        load *= arcs_[k].factor;
        at = arcs_[k].target;
        ++step;
        ++stats_.hops;
      }
    }
  }

  // Visits of `count` walkers with `load` at `col` after `step` hops (f_t = 0 beyond f's length).
  void deposit(std::int64_t col, std::int64_t step, double load, std::int64_t count) {
    const auto t = static_cast<size_t>(step);
    row_.add(col, f_[t] * (static_cast<double>(count) * (load * compensation_[t])));
  }

  void walk_packs(std::int64_t s) {
    // Options and counters in locals: the loop stores integers all the time (pool, stack), and the compiler
    // would otherwise reload anything reachable by reference after each store.
    const std::int64_t id = g_.id[static_cast<size_t>(s)], max_length = o_.max_length;
    const bool fixed_length = o_.fixed_length;
    std::int64_t hops = 0, truncated = 0, dead_ends = 0;
    // Draws of walker w at `step`: its stream is split from the node's root (one Philox block for the pack).
    const StartNodeStreams root(o_, id);
    const auto draw = [&](std::int32_t w, std::int64_t step) {
      WalkerDraws draws;
      draws.stream = root.walker(w);
      return draw_hop(o_, iid_, id, w, step, draws);
    };
    // A pack arriving at `at` after `step` hops: its visit is deposited now; it is kept for walking unless it
    // has made its last hop.
    const auto arrive = [&](std::int64_t at, double load, std::int64_t step, size_t first, size_t count) {
      deposit(at, step, load, static_cast<std::int64_t>(count));
      if (step == max_length) truncated += static_cast<std::int64_t>(count);
      else stack_.push_back({at, load, step, first, count});
    };
    pool_.resize(static_cast<size_t>(o_.walkers));
    std::iota(pool_.begin(), pool_.end(), std::int32_t{0});
    stack_.clear();
    if (max_length == 0) truncated += o_.walkers;
    else stack_.push_back({s, 1.0, 0, 0, static_cast<size_t>(o_.walkers)});
    while (!stack_.empty()) {
      const Pack p = stack_.back();
      stack_.pop_back();
      const std::int64_t begin = g_.row_ptr[static_cast<size_t>(p.at)], deg = g_.row_ptr[static_cast<size_t>(p.at) + 1] - begin;
      if (p.count == 1) {  // alone: an i.i.d. step, as the engine's lanes take it (walk_engine.hpp)
        const WalkDraw step = draw(pool_[p.first], p.step);
        if (step.halt) continue;
        if (deg == 0) {
          ++dead_ends;
          continue;
        }
        const auto arc = static_cast<size_t>(begin) + uniform_below(step.choice, static_cast<std::uint64_t>(deg));
        ++hops;
        arrive(arcs_[arc].target, p.load * arcs_[arc].factor, p.step + 1, p.first, 1);
        continue;
      }
      // The walkers that move: under fixed lengths all of the pack (its own pool range), else those that do not halt.
      size_t movers = p.first, c = p.count;
      if (!fixed_length) {
        movers = pool_.size();
        for (size_t k = 0; k < p.count; ++k) {
          const std::int32_t w = pool_[p.first + k];
          if (!draw(w, p.step).halt) pool_.push_back(w);
        }
        c = pool_.size() - movers;
      }
      if (c == 0) continue;
      if (deg == 0) {
        dead_ends += static_cast<std::int64_t>(c);
        continue;
      }
      RepellingWords word(o_, id, pool_[p.first], p.step);
      hops += static_cast<std::int64_t>(c);
      // Children that make their last hop need no member list, only their size.
      const bool leaves = p.step + 1 == max_length;
      // Stratified offsets are all distinct: every walker leads a pack of its own, kept in its pool slot.
      const bool alone = static_cast<std::int64_t>(c) <= deg;
      if (!alone) pool_.reserve(pool_.size() + c);
      split_pack(word, static_cast<std::int64_t>(c), deg, shifts_, [&](const PackChild& child) {
        const auto arc = static_cast<size_t>(begin + child.offset());
        if (alone) return arrive(arcs_[arc].target, p.load * arcs_[arc].factor, p.step + 1, movers + static_cast<size_t>(child[0]), 1);
        if (leaves) {
          deposit(arcs_[arc].target, p.step + 1, p.load * arcs_[arc].factor, child.size());
          truncated += child.size();
          return;
        }
        // A child pack's walkers, in ascending order, into a new pool range (capacity reserved: no reallocation).
        const size_t first = pool_.size();
        for (std::int64_t k = 0; k < child.size(); ++k) pool_.push_back(pool_[movers + static_cast<size_t>(child[k])]);
        arrive(arcs_[arc].target, p.load * arcs_[arc].factor, p.step + 1, first, pool_.size() - first);
      });
    }
    stats_.hops += hops;
    stats_.truncated += truncated;
    stats_.dead_ends += dead_ends;
  }

  const LocalGraph& g_;
  const WalkOptions& o_;
  const IidStep iid_;
  std::vector<double> f_;  // f_t for t = 0 .. max_length
  std::vector<double> compensation_ = halting_compensation(o_);  // (1/(1-p))^t, applied as the engine does
  LocalWalkStats& stats_;
  // Per arc, the factor a load is multiplied by (the engine's, so that loads agree to the last bit) and its
  // target, side by side: one cache line serves both.
  struct Arc {
    double factor;
    std::int64_t target;
  };
  std::vector<Arc> arcs_;
  RowAccumulator row_;
  std::vector<std::int32_t> pool_;  // walker ids of the packs
  std::vector<std::int64_t> shifts_;
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
