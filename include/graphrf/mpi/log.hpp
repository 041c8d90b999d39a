#pragma once
// Rank-0 console output. Human-readable lines are silenced by --quiet; machine-readable `RESULT key=value`
// lines and warnings always print (warnings to stderr, or to a sink: the Python package makes them Python warnings).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <sstream>
#include <string>

#include "graphrf/mpi/communicator.hpp"

namespace graphrf {

class Log {
 public:
  Log(const Communicator& comm, bool quiet)
      : root_(comm.is_root()), quiet_(quiet), terminal_(comm.is_root() && watched_terminal()) {}
  // Without MPI, for tests: `root` says whether this process is rank 0; lines go to `out` instead of stdout.
  Log(bool root, bool quiet, bool terminal, std::FILE* out) : root_(root), quiet_(quiet), terminal_(terminal), out_(out) {}
  bool quiet() const { return quiet_; }
  bool terminal() const { return terminal_; }
  void info(const std::string& line) const {
    if (root_ && !quiet_) std::fprintf(out_, "%s\n", line.c_str()), std::fflush(out_);
  }
  // Progress of a long phase: on a terminal one line rewritten in place, elsewhere (logs, Slurm output)
  // a plain line each time. `last` ends the in-place line.
  void progress(const std::string& line, bool last) const {
    if (!root_ || quiet_) return;
    if (terminal_) std::fprintf(out_, "\r%-100s%s", line.c_str(), last ? "\n" : "");
    else std::fprintf(out_, "%s\n", line.c_str());
    std::fflush(out_);
  }
  void warn(const std::string& line) const {
    if (!root_) return;
    if (warning_sink_) warning_sink_(line);
    else std::fprintf(stderr, "graphrf: warning: %s\n", line.c_str()), std::fflush(stderr);
  }
  // Warnings go to `sink` (called on rank 0 only) instead of stderr.
  void send_warnings_to(std::function<void(const std::string&)> sink) { warning_sink_ = std::move(sink); }
  // One `RESULT k1=v1 k2=v2 ...` line for scripts.
  void result(const std::string& key_values) const {
    if (root_) std::fprintf(out_, "RESULT %s\n", key_values.c_str()), std::fflush(out_);
  }

 private:
  // Open MPI's mpirun hands every rank a pseudo-terminal for its output whatever mpirun's own output is (a log
  // file, a pipe, Slurm's output file), so under mpirun a terminal says nothing: progress is then plain lines.
  static bool watched_terminal() { return ::isatty(::fileno(stdout)) && std::getenv("OMPI_COMM_WORLD_SIZE") == nullptr; }

  bool root_;
  bool quiet_;
  bool terminal_;
  std::FILE* out_ = stdout;
  std::function<void(const std::string&)> warning_sink_;
};

// Fixed-precision number formatting for reports.
inline std::string fmt(double v, int precision = 3) {
  std::ostringstream s;
  s.precision(precision);
  s << std::fixed << v;
  return s.str();
}

// Three significant digits in scientific notation, for values that may be tiny (errors, normalisers).
inline std::string sci(double v) {
  std::ostringstream s;
  s.precision(2);
  s << std::scientific << v;
  return s.str();
}

}  // namespace graphrf
