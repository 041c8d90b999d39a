#include "graphrf/mpi/mpi_environment.hpp"

#include "graphrf/mpi/communicator.hpp"

namespace graphrf {

MpiEnvironment::MpiEnvironment(int& argc, char**& argv) {
  int provided = 0;
  check_mpi(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  check_mpi(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
}

MpiEnvironment::~MpiEnvironment() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

void MpiEnvironment::abort(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::abort();
}

}  // namespace graphrf
