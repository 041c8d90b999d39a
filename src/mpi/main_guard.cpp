#include "graphrf/mpi/main_guard.hpp"

#include <cstdio>
#include <exception>

#include "graphrf/mpi/mpi_environment.hpp"

namespace graphrf {

int run_guarded(const char* program, const Communicator& comm, const std::function<int()>& body) {
  try {
    return body();
  } catch (const InputError& e) {
    if (e.collective()) {
      if (comm.is_root()) std::fprintf(stderr, "%s: error: %s\n", program, e.what());
      return 1;
    }
    std::fprintf(stderr, "%s: error (rank %d): %s\n", program, comm.rank(), e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error (rank %d): %s\n", program, comm.rank(), e.what());
  }
  std::fflush(stderr);
  MpiEnvironment::abort(1);
}

}  // namespace graphrf
