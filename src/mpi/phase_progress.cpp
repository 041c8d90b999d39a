#include "graphrf/mpi/phase_progress.hpp"

#include <exception>
#include <memory>

namespace graphrf {

namespace {
const Log* g_log = nullptr;

const Log* program_log() { return g_log != nullptr && !g_log->quiet() ? g_log : nullptr; }
}  // namespace

void set_phase_progress_log(const Log* log) { g_log = log; }
const Log* phase_progress_log() { return g_log; }

PhaseProgress::PhaseProgress(std::string what, std::int64_t total)
    : PhaseProgress(std::move(what), total, program_log(), [timer = std::make_shared<Timer>()] { return timer->seconds(); }) {}

PhaseProgress::PhaseProgress(std::string what, std::int64_t total, const Log* log, Clock clock)
    : log_(log != nullptr && !log->quiet() ? log : nullptr), what_(std::move(what)), total_(total), clock_(std::move(clock)) {}

PhaseProgress::~PhaseProgress() {
  if (log_ != nullptr && last_line_ >= 0) report(total_, true);
}

void PhaseProgress::report(std::int64_t done, bool last) {
  const double now = clock_();
  if (!last) {
    if (now < kFirstLineSeconds) return;
    const double interval = log_->terminal() ? kTerminalInterval : kLogFileInterval;
    if (last_line_ >= 0 && now - last_line_ < interval) return;
  }
  const double share = total_ > 0 ? 100.0 * static_cast<double>(done) / static_cast<double>(total_) : 100.0;
  std::string line = what_ + ": " + fmt(share, 1) + "% of rank 0's share, " + fmt(now, 1) + " s";
  const double rate = now > 0 ? static_cast<double>(done) / now : 0.0;
  if (last) {
    line += " (done, " + rate_per_second(rate) + ")";
  } else {
    line += ", " + rate_per_second(rate);
    if (rate > 0) line += ", ETA " + fmt(static_cast<double>(total_ - done) / rate, 0) + " s";
  }
  log_->progress(line, last);
  last_line_ = now;
}

std::string rate_per_second(double units_per_second) {
  if (units_per_second >= 1e6) return fmt(units_per_second / 1e6, 2) + "M/s";
  if (units_per_second >= 1e3) return fmt(units_per_second / 1e3, 1) + "k/s";
  return fmt(units_per_second, 1) + "/s";
}

void phase_note(const std::string& line, bool expected_slow) {
  if (g_log != nullptr && expected_slow) g_log->info(line);
}

PhaseStep::PhaseStep(std::string what, bool expected_slow)
    : log_(expected_slow ? program_log() : nullptr), what_(std::move(what)), exceptions_at_start_(std::uncaught_exceptions()) {
  if (log_ != nullptr) log_->info(what_ + " ...");
}

PhaseStep::~PhaseStep() {
  if (log_ != nullptr && std::uncaught_exceptions() == exceptions_at_start_)
    log_->info(what_ + ": done in " + fmt(timer_.seconds(), 2) + " s");
}

}  // namespace graphrf
