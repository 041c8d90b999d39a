// graphrf command-line entry point (see main_guard.hpp for how errors end the job).
#include "graphrf/cli/cli.hpp"
#include "graphrf/mpi/main_guard.hpp"
#include "graphrf/mpi/mpi_environment.hpp"

int main(int argc, char** argv) {
  graphrf::MpiEnvironment env(argc, argv);
  const graphrf::Communicator world(MPI_COMM_WORLD);
  return graphrf::run_guarded("graphrf", world, [&] { return graphrf::run_cli(world, argc, argv); });
}
