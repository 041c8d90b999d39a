#include "graphrf/walks/walk_options.hpp"

#include <cmath>
#include <fstream>
#include <sstream>

#include "graphrf/core/error.hpp"

namespace graphrf {

namespace {
constexpr Coupling kCouplings[] = {Coupling::iid,       Coupling::antithetic,           Coupling::sigma,
                                   Coupling::repelling, Coupling::antithetic_repelling, Coupling::sigma_repelling};
}  // namespace

const char* coupling_name(Coupling c) {
  switch (c) {
    case Coupling::iid: return "iid";
    case Coupling::antithetic: return "antithetic";
    case Coupling::sigma: return "sigma";
    case Coupling::repelling: return "repelling";
    case Coupling::antithetic_repelling: return "antithetic+repelling";
    case Coupling::sigma_repelling: return "sigma+repelling";
  }
  return "?";
}

Coupling parse_coupling(std::string_view s) {
  for (Coupling c : kCouplings)
    if (s == coupling_name(c)) return c;
  throw InputError("walk.coupling: unknown coupling '" + std::string(s) +
                   "' (expected iid, antithetic, sigma, repelling, antithetic+repelling or sigma+repelling)");
}

std::vector<int> parse_sigma(const std::string& text, const std::string& source) {
  std::vector<std::int64_t> values;
  std::vector<int> value_line;
  std::istringstream lines(text);
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    std::string word;
    while (words >> word) {
      std::size_t used = 0;
      std::int64_t v = 0;
      try {
        v = std::stoll(word, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != word.size())
        throw InputError(source + ":" + std::to_string(number) + ": expected a positive integer, got '" + word + "'");
      values.push_back(v);
      value_line.push_back(number);
    }
  }
  if (values.empty()) throw InputError(source + ": no permutation (expected whitespace-separated values 1..m)");
  const auto m = static_cast<std::int64_t>(values.size());
  std::vector<int> sigma(values.size());
  std::vector<bool> seen(values.size(), false);
  for (std::size_t k = 0; k < values.size(); ++k) {
    const std::int64_t v = values[k];
    const std::string where = source + ":" + std::to_string(value_line[k]);
    if (v < 1 || v > m)
      throw InputError(where + ": value " + std::to_string(v) + " outside 1.." + std::to_string(m) +
                       " (a permutation of " + std::to_string(m) + " values, 1-based)");
    if (seen[static_cast<std::size_t>(v - 1)])
      throw InputError(where + ": value " + std::to_string(v) + " appears twice (not a permutation)");
    seen[static_cast<std::size_t>(v - 1)] = true;
    sigma[k] = static_cast<int>(v - 1);
  }
  return sigma;
}

std::vector<int> read_sigma_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw FileError("walk.sigma: cannot open '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_sigma(text.str(), path);
}

StepRule parse_step_rule(std::string_view s) {
  if (s == "uniform") return StepRule::uniform;
  if (s == "weighted") return StepRule::weighted;
  throw InputError("walk.step: unknown step rule '" + std::string(s) + "' (expected uniform or weighted)");
}

WeightMode parse_weight_mode(std::string_view s) {
  if (s == "normalized") return WeightMode::normalized;
  if (s == "raw") return WeightMode::raw;
  if (s == "combinatorial") return WeightMode::combinatorial;
  throw InputError("walk.weights: expected normalized, raw or combinatorial (got '" + std::string(s) + "')");
}

const char* weight_mode_name(WeightMode m) {
  switch (m) {
    case WeightMode::normalized: return "normalized";
    case WeightMode::raw: return "raw";
    case WeightMode::combinatorial: return "combinatorial";
  }
  return "?";
}

double expected_hops_per_walk(const WalkOptions& walk) {
  if (walk.fixed_length) return static_cast<double>(walk.max_length);  // every walker makes exactly T hops
  const double keep = 1.0 - walk.p_halt;
  return keep * (1.0 - std::pow(keep, static_cast<double>(walk.max_length))) / walk.p_halt;
}

bool starts_walkers(const WalkOptions& o, std::int64_t canonical_index) {
  return o.start_every == 1 || canonical_index % o.start_every == 0;
}

void validate(const WalkOptions& o) {
  if (!o.fixed_length && !(o.p_halt > 0.0 && o.p_halt < 1.0))
    throw InputError("walk.p_halt: must be in (0, 1) (got " + std::to_string(o.p_halt) + ")");
  if (o.walkers < 1) throw InputError("walk.walkers: must be >= 1 (got " + std::to_string(o.walkers) + ")");
  if (o.walkers > 1000000)
    throw InputError("walk.walkers: at most 1000000 walkers per node (got " + std::to_string(o.walkers) + ")");
  if (termination_of(o.coupling) != Termination::iid && o.walkers % 2 != 0)
    throw InputError(std::string("walk.walkers: ") + coupling_name(o.coupling) +
                     " coupling pairs walkers k and k + n/2, so n must be even (got " + std::to_string(o.walkers) + ")");
  if (termination_of(o.coupling) == Termination::sigma && o.sigma.empty())
    throw InputError(std::string("walk.coupling ") + coupling_name(o.coupling) +
                     ": needs a permutation, walk.sigma FILE (learn one with graphrf couple)");
  if (is_repelling(o.coupling) && o.step != StepRule::uniform)
    throw InputError(std::string("walk.coupling ") + coupling_name(o.coupling) +
                     ": repelling walks spread walkers over neighbours uniformly; use walk.step uniform");
  if (o.quantile >= 0 && o.quantile >= o.quantile_order)
    throw Error("walk options: quantile " + std::to_string(o.quantile) + " of " + std::to_string(o.quantile_order));
  if (o.start_every < 1) throw Error("walk options: start_every must be >= 1");
  if (o.max_length < 0) throw InputError("walk.max_length: must be >= 0 (got " + std::to_string(o.max_length) + ")");
  if (o.fixed_length && (termination_of(o.coupling) != Termination::iid || o.quantile >= 0))
    throw InputError(std::string("walk.fixed_length: walkers never halt, so walk.coupling ") + coupling_name(o.coupling) +
                     " (a coupling of halting) does not apply; use iid or repelling");
  if (o.fixed_length && o.max_length < 1) throw InputError("walk.fixed_length: must be >= 1 (got " + std::to_string(o.max_length) + ")");
  if (o.max_length > 100000) throw InputError("walk.max_length: at most 100000 (got " + std::to_string(o.max_length) + ")");
  if (!(o.scale > 0.0) || !std::isfinite(o.scale))
    throw InputError("walk.scale: must be finite and > 0 (got " + std::to_string(o.scale) + ")");
}

}  // namespace graphrf
