#include "graphrf/core/run_phase.hpp"

#include <utility>

namespace graphrf {

namespace {
std::string& current() {
  static std::string phase;
  return phase;
}
}  // namespace

const std::string& run_phase() { return current(); }

std::string out_of_memory_message() {
  const std::string& phase = current();
  return "out of memory" + (phase.empty() ? std::string() : " while " + phase) +
         " (an allocation failed; give more memory per rank, more ranks or --memory-limit, or a smaller input)";
}

RunPhase::RunPhase(std::string phase) : previous_(std::exchange(current(), std::move(phase))) {}
RunPhase::~RunPhase() { current() = std::move(previous_); }

}  // namespace graphrf
