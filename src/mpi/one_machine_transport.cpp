#include "graphrf/mpi/one_machine_transport.hpp"

#include <cstdlib>
#include <string_view>

namespace graphrf {

namespace {

bool is_set(const EnvironmentLookup& environment, const char* name) { return environment(name) != nullptr; }

}  // namespace

bool launch_is_on_one_machine(const EnvironmentLookup& environment) {
  const char* world = environment("OMPI_COMM_WORLD_SIZE");
  const char* local = environment("OMPI_COMM_WORLD_LOCAL_SIZE");
  // mpirun first: inside a Slurm allocation mpirun's ranks also inherit the batch job's SLURM_ variables.
  if (world != nullptr) return local != nullptr && std::string_view(world) == std::string_view(local);
  if (is_set(environment, "SLURM_PROCID")) {
    const char* nodes = environment("SLURM_STEP_NUM_NODES");
    return nodes != nullptr && std::string_view(nodes) == "1";
  }
  // Launched by something else that speaks PMI or PMIx: it cannot be told from here.
  if (is_set(environment, "PMIX_RANK") || is_set(environment, "PMI_RANK")) return false;
  return true;  // no launcher: MPI starts a single process
}

bool wants_shared_memory_transport(const EnvironmentLookup& environment) {
  if (is_set(environment, "OMPI_MCA_pml") || is_set(environment, "OMPI_MCA_mtl")) return false;
  return launch_is_on_one_machine(environment);
}

void prefer_shared_memory_transport_on_one_machine() {
  const EnvironmentLookup process_environment = [](const char* name) -> const char* { return std::getenv(name); };
  if (wants_shared_memory_transport(process_environment)) ::setenv("OMPI_MCA_pml", "ob1", 0);
}

}  // namespace graphrf
