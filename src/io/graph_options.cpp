#include "graphrf/io/graph_options.hpp"

#include "graphrf/core/error.hpp"

namespace graphrf {

DuplicatePolicy parse_duplicate_policy(std::string_view name) {
  if (name == "sum") return DuplicatePolicy::sum;
  if (name == "max") return DuplicatePolicy::max;
  if (name == "error") return DuplicatePolicy::error;
  throw InputError("graph.duplicates: unknown policy '" + std::string(name) + "' (expected sum, max or error)");
}

const char* duplicate_policy_name(DuplicatePolicy p) {
  switch (p) {
    case DuplicatePolicy::sum: return "sum";
    case DuplicatePolicy::max: return "max";
    case DuplicatePolicy::error: return "error";
  }
  return "?";
}

}  // namespace graphrf
