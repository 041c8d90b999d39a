#pragma once
// Rank-0 progress of long loops inside library phases (graph generation, loading steps, attention passes,
// references, output routing), through the program's Log: the program points it at its Log once
// (set_phase_progress_log); without one (unit and MPI tests, library users) nothing prints. Like the walk
// progress: silent for the first 2 s, then a line every 2 s on a terminal (rewritten in place) or every 20 s
// in a log file (plain lines), each with the rate and the time left at that rate, and a last line with the
// phase's time when any was printed. Rank 0 reports its own share of the work, which is the whole run's within
// the load balance. Not collective: only rank 0 prints (Log prints nothing on other ranks).
#include <cstdint>
#include <functional>
#include <string>

#include "graphrf/core/timer.hpp"
#include "graphrf/mpi/log.hpp"

namespace graphrf {

// The Log progress goes to (nullptr: none). Set by the program after parsing --quiet.
void set_phase_progress_log(const Log* log);
const Log* phase_progress_log();

class PhaseProgress {
 public:
  // Seconds since the phase started.
  using Clock = std::function<double()>;
  static constexpr double kFirstLineSeconds = 2.0;
  static constexpr double kTerminalInterval = 2.0;
  static constexpr double kLogFileInterval = 20.0;
  // The clock is read once every kCallsPerClockRead calls of update().
  static constexpr std::uint64_t kCallsPerClockRead = 4096;

  // `what` names the phase ("generating grid:1000x1000"); `total` is this rank's number of work units.
  // Reports to the program's Log on the wall clock.
  PhaseProgress(std::string what, std::int64_t total);
  // Reports to `log` (nullptr: silent) on `clock` (tests drive both).
  PhaseProgress(std::string what, std::int64_t total, const Log* log, Clock clock);
  ~PhaseProgress();
  PhaseProgress(const PhaseProgress&) = delete;
  PhaseProgress& operator=(const PhaseProgress&) = delete;

  // Cheap enough for inner loops: looks at the clock once every kCallsPerClockRead calls.
  void update(std::int64_t done) {
    if (log_ == nullptr || (++calls_ & (kCallsPerClockRead - 1)) != 0) return;
    report(done, false);
  }
  // For loops of few, long iterations (Chebyshev degrees): looks at the clock at every call.
  void step(std::int64_t done) {
    if (log_ != nullptr) report(done, false);
  }

 private:
  void report(std::int64_t done, bool last);

  const Log* log_;
  std::string what_;
  std::int64_t total_;
  Clock clock_;
  std::uint64_t calls_ = 0;
  double last_line_ = -1;  // seconds at the last line printed (-1: none yet)
};

// "12.3k/s": a rate with a k or M suffix, for progress lines.
std::string rate_per_second(double units_per_second);

// One line saying a step starts, for steps without a loop to report from (a METIS call, a sort). Printed
// only when `expected_slow` (callers pass a size threshold), so small runs stay as they are.
void phase_note(const std::string& line, bool expected_slow);

// A step without a loop to report from (a sort, a collective write): when `expected_slow`, a line
// "`what` ..." at its start and "`what`: done in X s" at its end (not when it ends by an exception).
class PhaseStep {
 public:
  PhaseStep(std::string what, bool expected_slow);
  ~PhaseStep();
  PhaseStep(const PhaseStep&) = delete;
  PhaseStep& operator=(const PhaseStep&) = delete;

 private:
  const Log* log_;
  std::string what_;
  int exceptions_at_start_;
  Timer timer_;
};

}  // namespace graphrf
