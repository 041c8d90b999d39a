#pragma once
// The closing lines of every run: per-rank min/avg/max of wall time, bytes sent and peak memory, as a
// human line on rank 0 and a machine-readable RESULT line.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "graphrf/mpi/log.hpp"

namespace graphrf {

// A per-rank figure reduced over ranks.
struct MinAvgMax {
  double min = 0, avg = 0, max = 0;
};
MinAvgMax min_avg_max(const Communicator& comm, double local);

// Peak resident memory of this process so far (or since reset_peak_memory), in MiB. On a host of several ranks it
// counts the host's shared arrays in every rank that maps them.
double peak_memory_mib();
// peak_memory_mib with the host's shared arrays counted once per host: less the shared pages this rank maps beyond
// its own slices (its peers' slices, which it reads in place and they count). The heap keeps what it frees
// (reuse_freed_memory.hpp), so private memory only grows: a high-water mark is reached with the windows of its time
// mapped, and windows record the figure before they are unmapped (note_own_peak_before_unmapping).
double own_peak_memory_mib();
// "peak per rank (max) P MiB = R x the estimate (...)" for the line a run prints after its work. Under
// kSmallEstimateMiB the ratio says little (a process holds tens of MiB of libraries and MPI buffers before it
// reads anything): "peak per rank (max) P MiB against an estimate of E MiB (...)".
constexpr double kSmallEstimateMiB = 64;
std::string describe_peak(double peak_mib, double estimate_mib);
// Resident memory of this process now with the host's shared arrays counted once per host (less the shared pages
// of other ranks it maps), in bytes: what it holds of the run's memory. 0 where unknown.
std::uint64_t own_resident_bytes();
// Called by a shared window before it unmaps its array.
void note_own_peak_before_unmapping();
// Restarts the peak (both figures) at the current resident size (Linux /proc/self/clear_refs), so that one phase of a
// run can be measured on its own. Returns false where that is not possible.
bool reset_peak_memory();
// CPU time this process has spent in the kernel so far, in seconds (page faults: mostly clearing fresh pages).
double kernel_cpu_seconds();

void print_run_summary(const Log& log, const Communicator& comm, double seconds);

}  // namespace graphrf

namespace graphrf {

// Wall time of a run by phase (load, walk, assemble, reference, write, ...), so the closing timing line
// accounts for the whole run: whatever the named phases do not cover is shown as "other".
class PhaseTimes {
 public:
  void add(const std::string& phase, double seconds);
  // Every phase of `other` in its order (a method's own phases inside a command's).
  void add(const PhaseTimes& other) {
    for (const auto& [phase, seconds] : other.phases_) add(phase, seconds);
  }
  // "time [s]    load 1.20  walk 3.40  ...  other 0.10  total 4.80" (seconds of rank 0's clock).
  std::string line(double total_seconds) const;

 private:
  std::vector<std::pair<std::string, double>> phases_;
};

}  // namespace graphrf
