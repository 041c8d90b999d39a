#include "graphrf/mpi/run_summary.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <fstream>

#include "graphrf/core/memory_size.hpp"
#include "graphrf/mpi/shared_array.hpp"

namespace graphrf {

double peak_memory_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

namespace {

// Shared pages this process maps beyond its own slices of live windows: other ranks' slices and MPI's own segments.
std::int64_t others_shared_bytes(const ResidentBytes& r) { return std::max<std::int64_t>(0, r.shared - own_shared_slice_bytes()); }

// The own peak seen when shared windows were unmapped (their peers' pages are then gone from the resident size,
// not from its high-water mark), and that high-water mark.
double g_own_peak_at_unmap_mib = 0;
double g_high_water_at_unmap_mib = 0;

}  // namespace

std::string describe_peak(double peak_mib, double estimate_mib) {
  const std::string peak = "peak per rank (max) " + fmt(peak_mib, 0) + " MiB";
  if (estimate_mib < kSmallEstimateMiB)
    return peak + " against an estimate of " + fmt(estimate_mib, 1) +
           " MiB (a small run: the process's own libraries and MPI buffers make most of the peak)";
  return peak + " = " + fmt(peak_mib / estimate_mib, 2) + " x the estimate (the process's own libraries and buffers included)";
}

double own_peak_memory_mib() {
  const double high_water = peak_memory_mib();
  const auto peers = static_cast<double>(others_shared_bytes(resident_bytes()));
  // A high-water mark above the one of the last unmapping was reached since, with the windows alive now mapped.
  const double since = high_water > g_high_water_at_unmap_mib ? high_water - peers / (1024.0 * 1024.0) : 0.0;
  return std::max(g_own_peak_at_unmap_mib, since);
}

std::uint64_t own_resident_bytes() {
  const ResidentBytes r = resident_bytes();
  return static_cast<std::uint64_t>(std::max<std::int64_t>(0, r.all - others_shared_bytes(r)));
}

void note_own_peak_before_unmapping() {
  g_own_peak_at_unmap_mib = std::max(g_own_peak_at_unmap_mib, own_peak_memory_mib());
  g_high_water_at_unmap_mib = peak_memory_mib();
}

double kernel_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_stime.tv_sec) + 1e-6 * static_cast<double>(usage.ru_stime.tv_usec);
}

bool reset_peak_memory() {
  g_own_peak_at_unmap_mib = g_high_water_at_unmap_mib = 0;
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";  // 5: reset the peak resident set size
  return static_cast<bool>(clear.flush());
}

MinAvgMax min_avg_max(const Communicator& comm, double local) {
  return {comm.min(local), comm.sum(local) / comm.size(), comm.max(local)};
}

void print_run_summary(const Log& log, const Communicator& comm, double seconds) {
  // Read the counter before the reductions below, which send bytes of their own.
  const double sent_mb = static_cast<double>(sent_bytes_total()) / 1e6;
  const MinAvgMax t = min_avg_max(comm, seconds), b = min_avg_max(comm, sent_mb),
                  m = min_avg_max(comm, own_peak_memory_mib());
  auto three = [](const MinAvgMax& x, int precision) {
    return fmt(x.min, precision) + " / " + fmt(x.avg, precision) + " / " + fmt(x.max, precision);
  };
  log.info("per rank    min / avg / max   time " + three(t, 2) + " s   sent " + three(b, 1) + " MB   peak memory " +
           three(m, 0) + " MiB");
  log.result("summary=run ranks=" + std::to_string(comm.size()) + " seconds_max=" + fmt(t.max, 4) + " seconds_avg=" +
             fmt(t.avg, 4) + " sent_mb_max=" + fmt(b.max, 3) + " sent_mb_total=" + fmt(b.avg * comm.size(), 3) +
             " peak_mib_max=" + fmt(m.max, 1) + " peak_mib_avg=" + fmt(m.avg, 1));
}

}  // namespace graphrf

namespace graphrf {

void PhaseTimes::add(const std::string& phase, double seconds) {
  for (auto& [name, total] : phases_)
    if (name == phase) {
      total += seconds;
      return;
    }
  phases_.emplace_back(phase, seconds);
}

std::string PhaseTimes::line(double total_seconds) const {
  std::string out = "time [s]   ";
  double covered = 0;
  for (const auto& [name, seconds] : phases_) {
    out += " " + name + " " + fmt(seconds, 2) + " ";
    covered += seconds;
  }
  return out + " other " + fmt(std::max(0.0, total_seconds - covered), 2) + "  total " + fmt(total_seconds, 2);
}

}  // namespace graphrf
