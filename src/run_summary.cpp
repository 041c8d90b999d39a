#include "graphrf/run_summary.hpp"

#include <sys/resource.h>

namespace graphrf {

double peak_memory_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

void print_run_summary(const Log& log, const Communicator& comm, double seconds, std::int64_t bytes_sent) {
  const double p = comm.size();
  const double mem = peak_memory_mib(), mb = static_cast<double>(bytes_sent) / 1e6;
  const double t_min = comm.min(seconds), t_avg = comm.sum(seconds) / p, t_max = comm.max(seconds);
  const double b_min = comm.min(mb), b_avg = comm.sum(mb) / p, b_max = comm.max(mb);
  const double m_min = comm.min(mem), m_avg = comm.sum(mem) / p, m_max = comm.max(mem);
  log.info("per rank    min / avg / max   time " + fmt(t_min, 2) + " / " + fmt(t_avg, 2) + " / " + fmt(t_max, 2) +
           " s   sent " + fmt(b_min, 1) + " / " + fmt(b_avg, 1) + " / " + fmt(b_max, 1) + " MB   peak memory " +
           fmt(m_min, 0) + " / " + fmt(m_avg, 0) + " / " + fmt(m_max, 0) + " MiB");
  log.result("summary=run ranks=" + std::to_string(comm.size()) + " seconds_max=" + fmt(t_max, 4) + " seconds_avg=" +
             fmt(t_avg, 4) + " sent_mb_max=" + fmt(b_max, 3) + " sent_mb_total=" + fmt(b_avg * p, 3) +
             " peak_mib_max=" + fmt(m_max, 1) + " peak_mib_avg=" + fmt(m_avg, 1));
}

}  // namespace graphrf
