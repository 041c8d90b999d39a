#pragma once
// Termination signals (SIGTERM from a user, from mpirun or from a Slurm time limit; SIGINT; SIGHUP; SIGUSR1, the
// warning Slurm sends before a time limit with --signal) and output files. Outside an output window a signal
// keeps its default action: the process ends at once and, since files are written to a temporary name first
// (graphrf/io/output_file.hpp), no file appears at PATH. Inside a window (an OutputWindow object is alive,
// i.e. while an output file is being written) the signal is only recorded, so the writer can decide, on every
// rank together, not to publish the file: see interrupt_signal() and the writers' commit steps.
namespace graphrf {

// Installs the handlers (idempotent). Also ignores SIGXFSZ, so a write past a file-size limit fails with EFBIG
// and is reported like a full disk instead of killing the process.
void install_interrupt_handlers();

// The first termination signal received inside an output window (0: none).
int interrupt_signal();

// "SIGTERM", "SIGINT", ... for messages.
const char* signal_name(int signal);

// While one is alive, termination signals are recorded instead of ending the process.
class OutputWindow {
 public:
  OutputWindow();
  ~OutputWindow();
  OutputWindow(const OutputWindow&) = delete;
  OutputWindow& operator=(const OutputWindow&) = delete;
};

}  // namespace graphrf
