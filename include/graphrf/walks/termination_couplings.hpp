#pragma once
// When a walker halts under the termination couplings: i.i.d. halting with probability p before every hop,
// antithetic pairs (Reid, Choromanski, Weller 2023, "Quasi-Monte Carlo graph random features": walkers k and
// k + n/2 share a uniform tau per step, drawn in walk_hop.hpp), and lengths drawn once at the start: sigma-coupled
// pairs (Reid et al. 2025b, "Variance-reducing couplings for random features", §4.1) or one quantile of the
// geometric law when learning sigma.
#include <cmath>
#include <cstdint>

#include "graphrf/core/counter_rng.hpp"
#include "graphrf/walks/walk_options.hpp"
#include "graphrf/walks/walker_streams.hpp"

namespace graphrf {

// Geometric(p) quantile function on {0, 1, ...}: F^-1(u) = floor(ln(1 - u) / ln(1 - p)), capped far above
// any max_length.
inline std::int64_t geometric_quantile_of_log(double u, double log_keep) {  // log_keep = ln(1 - p)
  const double k = std::floor(std::log1p(-u) / log_keep);
  return k < 1e15 ? static_cast<std::int64_t>(k) : std::int64_t{1000000000000000};
}
inline std::int64_t geometric_quantile(double u, double p) { return geometric_quantile_of_log(u, std::log1p(-p)); }

// Sigma coupling (Reid et al. 2025b, "Variance-reducing couplings for random features", §4.1, App. C.3):
// walkers k and k + n/2 of a start node form pair k, whose draw (q, V1, V2) is the first three words of the
// pair's stream (pair_stream): q uniform in 0..m-1, u1 = (q + V1)/m, u2 = (sigma(q) + V2)/m, lengths F^-1(u1)
// and F^-1(u2). Both u are uniform on [0, 1), so each length is exactly Geometric(p); sigma only matches their
// quantiles. With o.quantile >= 0 (learning sigma) every walker's u is instead uniform in quantile o.quantile.
struct PairLengths {
  std::int64_t first, second;  // of walkers pair and pair + n/2
};

// Both lengths of a sigma pair from its stream (what each walker alone would draw; the engine runs a node's
// walkers in order and hands the second length to walker pair + n/2). `log_keep` is ln(1 - p), which callers
// drawing many pairs compute once.
inline PairLengths sigma_pair_lengths(const WalkOptions& o, const WalkerStream& pair, double log_keep) {
  const auto m = static_cast<std::uint64_t>(o.sigma.size());
  const auto q = static_cast<std::int64_t>(uniform_below(pair.word(0), m));
  const double u1 = (static_cast<double>(q) + unit_uniform(pair.word(1))) / static_cast<double>(m);
  const double u2 = (o.sigma[static_cast<size_t>(q)] + unit_uniform(pair.word(2))) / static_cast<double>(m);
  return {geometric_quantile_of_log(u1, log_keep), geometric_quantile_of_log(u2, log_keep)};
}
inline PairLengths sigma_pair_lengths(const WalkOptions& o, std::int64_t start_id, std::int64_t pair) {
  return sigma_pair_lengths(o, StartNodeStreams(o, start_id).walker(o.walkers + pair), std::log1p(-o.p_halt));
}

// The length of a walker under fixed lengths (sigma pairs, or one quantile of Geometric(p) when learning sigma).
inline std::int64_t fixed_walk_length(const WalkOptions& o, std::int64_t start_id, std::int64_t walker,
                                      const WalkerStream& stream) {
  if (o.quantile >= 0) {
    const auto w = philox_block(o.seed, RngDomain::walk_length, static_cast<std::uint64_t>(start_id),
                                static_cast<std::uint64_t>(walker), o.ensemble, 1);
    return geometric_quantile((o.quantile + unit_uniform(w[0])) / o.quantile_order, o.p_halt);
  }
  const std::int64_t half = o.walkers / 2;
  const PairLengths pair = sigma_pair_lengths(o, pair_stream(stream, walker, o.walkers, walker % half), std::log1p(-o.p_halt));
  return walker < half ? pair.first : pair.second;
}
inline std::int64_t fixed_walk_length(const WalkOptions& o, std::int64_t start_id, std::int64_t walker) {
  return fixed_walk_length(o, start_id, walker, walker_stream(o, start_id, walker));
}

inline bool has_fixed_lengths(const WalkOptions& o) {
  return o.quantile >= 0 || termination_of(o.coupling) == Termination::sigma;
}

// Whether every step halts or not on its own coin (iid termination, no drawn lengths): then one word per step
// decides halting and the neighbour (IidStep).
inline bool iid_steps(const WalkOptions& o) {
  return !has_fixed_lengths(o) && termination_of(o.coupling) == Termination::iid;
}

}  // namespace graphrf
