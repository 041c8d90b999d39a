#include "graphrf/mpi/phase_progress.hpp"

namespace graphrf {

namespace {
const Log* g_log = nullptr;
constexpr double kFirstLineSeconds = 2.0;
constexpr double kTerminalInterval = 2.0;
constexpr double kLogFileInterval = 20.0;
}  // namespace

void set_phase_progress_log(const Log* log) { g_log = log; }
const Log* phase_progress_log() { return g_log; }

PhaseProgress::PhaseProgress(std::string what, std::int64_t total)
    : log_(g_log != nullptr && !g_log->quiet() ? g_log : nullptr), what_(std::move(what)), total_(total) {}

PhaseProgress::~PhaseProgress() {
  if (log_ != nullptr && last_line_ >= 0) report(total_, true);
}

void PhaseProgress::report(std::int64_t done, bool last) {
  const double now = timer_.seconds();
  if (!last) {
    if (now < kFirstLineSeconds) return;
    const double interval = log_->terminal() ? kTerminalInterval : kLogFileInterval;
    if (last_line_ >= 0 && now - last_line_ < interval) return;
  }
  const double share = total_ > 0 ? 100.0 * static_cast<double>(done) / static_cast<double>(total_) : 100.0;
  log_->progress(what_ + ": " + fmt(share, 1) + "% of rank 0's share, " + fmt(now, 1) + " s" + (last ? " (done)" : ""),
                 last);
  last_line_ = now;
}

void phase_note(const std::string& line, bool expected_slow) {
  if (g_log != nullptr && expected_slow) g_log->info(line);
}

}  // namespace graphrf
