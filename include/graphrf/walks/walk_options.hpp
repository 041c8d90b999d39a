#pragma once
// Parameters of the halting random walks behind graph random features (Reid et al. 2025a, "Linear
// transformer topological masking with graph random features", §3.3; antithetic termination: Reid, Choromanski,
// Weller 2023, "Quasi-Monte Carlo graph random features").
#include <cstdint>
#include <string>
#include <string_view>

namespace graphrf {

enum class Coupling { iid, antithetic };
enum class StepRule { uniform, weighted };
enum class WeightMode { normalized, raw };

struct WalkOptions {
  std::int64_t walkers = 16;        // n walkers per start node
  double p_halt = 0.5;              // halting probability tested before every hop
  std::int64_t max_length = 32;     // walks stop after this many hops
  std::uint64_t seed = 1;
  Coupling coupling = Coupling::iid;
  StepRule step = StepRule::uniform;
  WeightMode weights = WeightMode::normalized;
  double scale = 1.0;               // W = scale * A when weights == raw
  std::uint64_t ensemble = 0;       // independent walk ensembles of one run differ here (two-ensemble estimator)
};

Coupling parse_coupling(std::string_view);      // InputError naming --coupling
StepRule parse_step_rule(std::string_view);     // InputError naming --step
WeightMode parse_weight_mode(std::string_view); // InputError naming --weights
// Throws InputError for p_halt outside (0,1), walkers < 1, odd walkers with antithetic, max_length < 0, scale <= 0.
void validate(const WalkOptions&);

}  // namespace graphrf
