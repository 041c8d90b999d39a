#include "graphrf/mpi/main_guard.hpp"

#include <cstdio>
#include <exception>
#include <new>

#include "graphrf/core/interrupt.hpp"
#include "graphrf/core/run_phase.hpp"
#include "graphrf/core/unrecoverable.hpp"
#include "graphrf/mpi/mpi_environment.hpp"

namespace graphrf {

int run_guarded(const char* program, const Communicator& comm, const std::function<int()>& body) {
  install_interrupt_handlers();
  try {
    return body();
  } catch (const InputError& e) {
    if (e.collective()) {
      if (comm.is_root()) std::fprintf(stderr, "%s: error: %s\n", program, e.what());
      if (!is_unrecoverable()) return 1;
      // Printed once; now end without MPI_Finalize, which would hang (see graphrf/core/unrecoverable.hpp).
      std::fflush(stderr);
      MPI_Barrier(comm.get());
      MpiEnvironment::abort(1);
    }
    std::fprintf(stderr, "%s: error (rank %d): %s\n", program, comm.rank(), e.what());
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "%s: error (rank %d): %s\n", program, comm.rank(), out_of_memory_message().c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error (rank %d): %s\n", program, comm.rank(), e.what());
  }
  std::fflush(stderr);
  MpiEnvironment::abort(1);
}

}  // namespace graphrf
