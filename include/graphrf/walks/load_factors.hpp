#pragma once
// The factors a walker's load is multiplied by on each arc, so that a walk's load is its importance weight
// (Reid et al. 2025a, "Linear transformer topological masking with graph random features", Eq. 10), for every
// weight mode and step rule, and the rows of arcs the walk engine draws from.
#include <cstdint>
#include <vector>

#include "graphrf/walks/walk_options.hpp"

namespace graphrf {

// Under --weights combinatorial (W = (A + diag(d_max - d_v)) / d_max) a walker at v also has a self-loop of
// step weight d_max - d_v, the last arc of v's row, present when it is > 0 (0 for the nodes of largest degree;
// d_max for an isolated node, which then keeps its walkers instead of ending them). 0 in the other modes.
inline double combinatorial_self_loop(const WalkOptions& o, double degree_of_v) {
  return o.weights == WeightMode::combinatorial ? o.max_degree - degree_of_v : 0.0;
}

// The sum of the step weights of v's arcs: d_v, or d_max under --weights combinatorial (the self-loop included).
inline double row_step_weight(const WalkOptions& o, double degree_of_v) {
  return o.weights == WeightMode::combinatorial ? o.max_degree : degree_of_v;
}

// The factor a walker's load is multiplied by on the arc v->u: W_vu / (P(step v->u) (1 - p)), with W_vu the
// normalised, scaled or combinatorial weight (o.weights), uniform steps picking u with 1 / arcs(v) and
// weighted ones with weight / row_weight. `weight` is the arc's a_vu (the self-loop's d_max - d_v),
// `row_weight` is row_step_weight, `arcs_of_v` counts the self-loop when there is one; `keep` is 1 - p.
inline double hop_load_factor(const WalkOptions& o, double normalized_weight, double weight, double arcs_of_v,
                              double row_weight, double keep) {
  const double w = o.weights == WeightMode::normalized ? normalized_weight
                   : o.weights == WeightMode::raw      ? o.scale * weight
                                                       : weight / o.max_degree;
  return o.step == StepRule::uniform ? w * arcs_of_v / keep : w * row_weight / (weight * keep);
}

// (1 / (1 - p))^t for t = 0 .. max_length: the part of a walk's importance weight that compensates for not
// halting, applied to a load when it is deposited after t hops rather than at every hop (the walk engine's
// arc table leaves it out of its factors, so one table serves every halting probability).
inline std::vector<double> halting_compensation(const WalkOptions& o) {
  const double inv_keep = 1.0 / (1.0 - o.halt_probability());
  std::vector<double> c(static_cast<size_t>(o.max_length) + 1, 1.0);
  for (size_t t = 1; t < c.size(); ++t) c[t] = c[t - 1] * inv_keep;
  return c;
}

// One arc a walker at v may take: its target, the factor hop_load_factor gives the load, and its step weight
// (what --step weighted picks in proportion to).
struct WalkArc {
  std::int64_t target;
  double factor;
  double step_weight;
};

// The arcs of v in the order the walk engine draws them: v's graph arcs (targets `col`, weights a_vu and
// normalised weights, canonical order), then under --weights combinatorial the self-loop to `self` when its
// weight d_max - d_v is > 0. Appended to `out`. The expected factor of one hop, sum over arcs of
// P(arc) (1 - p) factor, is W_vu: the estimator is unbiased for every mode.
inline void append_walk_row(const WalkOptions& o, std::int64_t self, const std::int64_t* col, const double* normalized_weight,
                            const double* weight, std::int64_t n_arcs, double degree_of_v, double keep,
                            std::vector<WalkArc>& out) {
  const double loop = combinatorial_self_loop(o, degree_of_v), row_weight = row_step_weight(o, degree_of_v);
  const double arcs_of_v = static_cast<double>(n_arcs + (loop > 0.0));
  for (std::int64_t k = 0; k < n_arcs; ++k)
    out.push_back({col[k], hop_load_factor(o, normalized_weight[k], weight[k], arcs_of_v, row_weight, keep), weight[k]});
  if (loop > 0.0) out.push_back({self, hop_load_factor(o, 0.0, loop, arcs_of_v, row_weight, keep), loop});
}

}  // namespace graphrf
