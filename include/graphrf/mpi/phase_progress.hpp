#pragma once
// Rank-0 progress of long loops inside library phases (graph generation, loading steps, attention passes),
// through the program's Log: the program points it at its Log once (set_phase_progress_log); without one
// (unit and MPI tests, library users) nothing prints. Like the walk progress: silent for the first 2 s, then a
// line every 2 s on a terminal (rewritten in place) or every 20 s in a log file (plain lines), and a last
// line with the phase's time when any was printed. Rank 0 reports its own share of the work, which is the
// whole run's within the load balance. Not collective: only rank 0 prints.
#include <cstdint>
#include <string>

#include "graphrf/core/timer.hpp"
#include "graphrf/mpi/log.hpp"

namespace graphrf {

// The Log progress goes to (nullptr: none). Set by the program after parsing --quiet.
void set_phase_progress_log(const Log* log);
const Log* phase_progress_log();

class PhaseProgress {
 public:
  // `what` names the phase ("generating grid:1000x1000"); `total` is this rank's number of work units.
  PhaseProgress(std::string what, std::int64_t total);
  ~PhaseProgress();
  PhaseProgress(const PhaseProgress&) = delete;
  PhaseProgress& operator=(const PhaseProgress&) = delete;

  // Cheap enough for inner loops: looks at the clock once every 4096 calls.
  void update(std::int64_t done) {
    if (log_ == nullptr || (++calls_ & 4095) != 0) return;
    report(done, false);
  }

 private:
  void report(std::int64_t done, bool last);

  const Log* log_;
  std::string what_;
  std::int64_t total_;
  std::uint64_t calls_ = 0;
  double last_line_ = -1;  // seconds at the last line printed (-1: none yet)
  Timer timer_;
};

// One line saying a step starts, for steps without a loop to report from (a METIS call, a sort). Printed
// only when `expected_slow` (callers pass a size threshold), so small runs stay as they are.
void phase_note(const std::string& line, bool expected_slow);

}  // namespace graphrf
