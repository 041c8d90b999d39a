#include "graphrf/walks/walk_options.hpp"

#include <cmath>

#include "graphrf/core/error.hpp"

namespace graphrf {

Coupling parse_coupling(std::string_view s) {
  if (s == "iid") return Coupling::iid;
  if (s == "antithetic") return Coupling::antithetic;
  throw InputError("--coupling: unknown coupling '" + std::string(s) + "' (expected iid or antithetic)");
}

StepRule parse_step_rule(std::string_view s) {
  if (s == "uniform") return StepRule::uniform;
  if (s == "weighted") return StepRule::weighted;
  throw InputError("--step: unknown step rule '" + std::string(s) + "' (expected uniform or weighted)");
}

WeightMode parse_weight_mode(std::string_view s) {
  if (s == "normalized") return WeightMode::normalized;
  if (s == "raw") return WeightMode::raw;
  throw InputError("--weights: expected normalized or raw (got '" + std::string(s) + "')");
}

void validate(const WalkOptions& o) {
  if (!o.fixed_length && !(o.p_halt > 0.0 && o.p_halt < 1.0))
    throw InputError("--p-halt: must be in (0, 1) (got " + std::to_string(o.p_halt) + ")");
  if (o.walkers < 1) throw InputError("--walkers: must be >= 1 (got " + std::to_string(o.walkers) + ")");
  if (o.walkers > 1000000)
    throw InputError("--walkers: at most 1000000 walkers per node (got " + std::to_string(o.walkers) + ")");
  if (o.coupling == Coupling::antithetic && o.walkers % 2 != 0)
    throw InputError("--walkers: antithetic coupling pairs walkers k and k + n/2, so n must be even (got " +
                     std::to_string(o.walkers) + ")");
  if (o.max_length < 0) throw InputError("--max-length: must be >= 0 (got " + std::to_string(o.max_length) + ")");
  if (o.fixed_length && o.max_length < 1) throw InputError("--fixed-length: must be >= 1 (got " + std::to_string(o.max_length) + ")");
  if (o.max_length > 100000) throw InputError("--max-length: at most 100000 (got " + std::to_string(o.max_length) + ")");
  if (!(o.scale > 0.0) || !std::isfinite(o.scale))
    throw InputError("--scale: must be finite and > 0 (got " + std::to_string(o.scale) + ")");
}

}  // namespace graphrf
