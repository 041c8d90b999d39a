#pragma once
// The phase the program is in ("loading cora.cites", "walking", "writing grf.h5"), so that a failure with
// no context of its own (std::bad_alloc) can still be reported as one line naming the phase and its input.
#include <string>

namespace graphrf {

// The current phase ("" before the first one).
const std::string& run_phase();

// "out of memory while PHASE (std::bad_alloc): ..." for an allocation failure.
std::string out_of_memory_message();

// Sets the phase for its lifetime and restores the previous one after.
class RunPhase {
 public:
  explicit RunPhase(std::string phase);
  ~RunPhase();
  RunPhase(const RunPhase&) = delete;
  RunPhase& operator=(const RunPhase&) = delete;

 private:
  std::string previous_;
};

}  // namespace graphrf
