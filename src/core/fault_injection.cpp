#include "graphrf/core/fault_injection.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "graphrf/core/interrupt.hpp"

namespace graphrf {

void fault_injection_pause_before_commit(const char* where) {
  const char* value = std::getenv("GRAPHRF_FAULT_PAUSE_BEFORE_COMMIT");
  if (!value) return;
  const double seconds = std::atof(value);
  std::fprintf(stderr, "graphrf fault injection: pausing %.1f s before committing %s\n", seconds, where);
  std::fflush(stderr);
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end && interrupt_signal() == 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
}

}  // namespace graphrf
