#pragma once
// Parameters of the halting random walks behind graph random features (Reid et al. 2025a, "Linear
// transformer topological masking with graph random features", §3.3) and their couplings: antithetic
// termination (Reid, Choromanski, Weller 2023, "Quasi-Monte Carlo graph random features"), repelling walks
// (Reid, Berger, Choromanski, Weller 2024, "Repelling random walks") and sigma-couplings of walk lengths
// (Reid et al. 2025b, "Variance-reducing couplings for random features", §4.1).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace graphrf {

// How the n walkers of one start node are coupled. Termination (iid, antithetic, sigma) and direction
// (independent or repelling) combine; every coupling keeps each walker marginally a simple random walk with
// a Geometric(p) length, so the GRF estimator is unchanged.
enum class Coupling { iid, antithetic, sigma, repelling, antithetic_repelling, sigma_repelling };
enum class Termination { iid, antithetic, sigma };
inline Termination termination_of(Coupling c) {  // inline: asked on every hop
  if (c == Coupling::antithetic || c == Coupling::antithetic_repelling) return Termination::antithetic;
  if (c == Coupling::sigma || c == Coupling::sigma_repelling) return Termination::sigma;
  return Termination::iid;
}
inline bool is_repelling(Coupling c) {
  return c == Coupling::repelling || c == Coupling::antithetic_repelling || c == Coupling::sigma_repelling;
}
const char* coupling_name(Coupling);
enum class StepRule { uniform, weighted };
// The walk matrix W: D^-1/2 A D^-1/2 (normalized), c A (raw), or, for the combinatorial Laplacian L = D - A,
// W = I - L / d_max = (A + diag(d_max - d_i)) / d_max (combinatorial: every row sums to 1, so rho(W) = 1; the
// walks add a self-loop of weight d_max - d_i to each node, and named kernels h(L) become h(d_max (I - W))).
enum class WeightMode { normalized, raw, combinatorial };

struct WalkOptions {
  std::int64_t walkers = 16;        // n walkers per start node
  double p_halt = 0.5;              // halting probability tested before every hop
  std::int64_t max_length = 32;     // walks stop after this many hops
  // Every walker makes exactly max_length hops (no halting; it stops early only at a dead end), so the
  // importance weight 1/(1 - p)^t is 1 and the estimate is of the truncated series sum_{t<=T} f_t W^t.
  bool fixed_length = false;
  std::uint64_t seed = 1;
  Coupling coupling = Coupling::iid;
  StepRule step = StepRule::uniform;
  WeightMode weights = WeightMode::normalized;
  double scale = 1.0;               // W = scale * A when weights == raw
  // d_max, the largest weighted degree of the graph, when weights == combinatorial (set from the loaded graph
  // by bind_combinatorial_laplacian; 0 until then, which the walks refuse).
  double max_degree = 0.0;
  std::uint64_t ensemble = 0;       // independent walk ensembles of one run differ here (two-ensemble estimator)
  std::vector<int> sigma;           // sigma coupling: permutation of 0..m-1 matching length quantiles of a pair
  // Every walker's length drawn from quantile `quantile` (0-based) of `quantile_order` equal-mass quantiles of
  // Geometric(p) (learning sigma; -1: off, the coupling decides).
  int quantile = -1, quantile_order = 0;
  bool teleport_dangling = false;   // PageRank: a walker at a node without out-arcs jumps to a uniform node
  std::int64_t start_every = 1;     // walkers start at nodes whose canonical index is a multiple of this

  double halt_probability() const { return fixed_length ? 0.0 : p_halt; }
};

Coupling parse_coupling(std::string_view);      // InputError naming --coupling
// A permutation as text: whitespace-separated values 1..m, each once ('#' starts a comment). Returns it
// 0-based. InputError naming `source` (and the line) otherwise.
std::vector<int> parse_sigma(const std::string& text, const std::string& source);
std::vector<int> read_sigma_file(const std::string& path);  // InputError naming the file
StepRule parse_step_rule(std::string_view);     // InputError naming --step
WeightMode parse_weight_mode(std::string_view); // InputError naming --weights
const char* weight_mode_name(WeightMode);       // "normalized", "raw", "combinatorial"
// Throws InputError for p_halt outside (0,1) (unless fixed_length), walkers < 1, odd walkers with antithetic or
// sigma, sigma coupling without a permutation, max_length < 0 (< 1 when fixed_length), scale <= 0.
void validate(const WalkOptions&);
// Whether walkers start at the node of this canonical index (start_every).
bool starts_walkers(const WalkOptions&, std::int64_t canonical_index);
// Mean hops, hence visits, of one walk: sum_{t=1..T} (1-p)^t (T with --fixed-length).
double expected_hops_per_walk(const WalkOptions& walk);

}  // namespace graphrf
