// graphrf command-line entry point (see main_guard.hpp for how errors end the job).
#include "graphrf/cli/cli.hpp"
#ifdef GRAPHRF_HAVE_SLEPC
#include "graphrf/cli/eigensolver_anchor.hpp"
#endif
#include "graphrf/core/reuse_freed_memory.hpp"
#include "graphrf/mpi/main_guard.hpp"
#include "graphrf/mpi/mpi_environment.hpp"
#include "graphrf/mpi/one_machine_transport.hpp"

int main(int argc, char** argv) {
  graphrf::restart_with_huge_page_heap(argv);  // may start this executable again, before MPI does
  graphrf::reuse_freed_memory();
  graphrf::prefer_shared_memory_transport_on_one_machine();
  graphrf::MpiEnvironment env(argc, argv);
  const graphrf::Communicator world(MPI_COMM_WORLD);
#ifdef GRAPHRF_HAVE_SLEPC
  graphrf::register_eigensolver_anchor(graphrf::slepc_krylov_schur_anchor());  // for bench-wavelet
#endif
  return graphrf::run_guarded("graphrf", world, [&] { return graphrf::run_cli(world, argc, argv); });
}
