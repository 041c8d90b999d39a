#include "graphrf/core/interrupt.hpp"

#include <csignal>

namespace graphrf {

namespace {

volatile std::sig_atomic_t g_signal = 0;
volatile std::sig_atomic_t g_open_windows = 0;

// SIGUSR1: the warning Slurm sends before a time limit with --signal (e.g. sbatch --signal=USR1@60).
constexpr int kTerminationSignals[] = {SIGTERM, SIGINT, SIGHUP, SIGUSR1};

extern "C" void on_termination_signal(int signal) {
  if (g_open_windows > 0) {
    if (g_signal == 0) g_signal = signal;
    return;
  }
  // No output is being written: end the process the way the signal would have without a handler.
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

}  // namespace

void install_interrupt_handlers() {
  struct sigaction action {};
  action.sa_handler = on_termination_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // writes in progress continue; the writer checks the flag before publishing
  for (int signal : kTerminationSignals) sigaction(signal, &action, nullptr);
  std::signal(SIGXFSZ, SIG_IGN);
}

int interrupt_signal() { return g_signal; }

const char* signal_name(int signal) {
  switch (signal) {
    case SIGTERM:
      return "SIGTERM";
    case SIGINT:
      return "SIGINT";
    case SIGHUP:
      return "SIGHUP";
    case SIGUSR1:
      return "SIGUSR1";
    default:
      return "a signal";
  }
}

OutputWindow::OutputWindow() { g_open_windows = g_open_windows + 1; }
OutputWindow::~OutputWindow() { g_open_windows = g_open_windows - 1; }

}  // namespace graphrf
