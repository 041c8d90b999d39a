#pragma once
// Which point-to-point layer Open MPI starts when every rank of a launch is on one machine. MPI_Init opens each
// layer it was built with and asks it whether it can run; the network ones (the `cm` layer's PSM, PSM2 and OFI
// drivers, then UCX) search for their hardware first. On the machines measured that search took 0.2 s of a
// 0.45 s MPI_Init, on every launch, and when no rank is on another machine it always ends with `ob1` (shared
// memory through `vader`) anyway. So the executable names `ob1` itself on a one-machine launch, unless the user
// chose a layer (OMPI_MCA_pml or OMPI_MCA_mtl set): clusters keep whatever their network needs.
#include <functional>

namespace graphrf {

// The process environment, one variable at a time (nullptr: unset); std::getenv in the executable.
using EnvironmentLookup = std::function<const char*(const char*)>;

// Whether the launcher says all ranks share this machine: mpirun's OMPI_COMM_WORLD_LOCAL_SIZE equals its
// OMPI_COMM_WORLD_SIZE; srun's SLURM_STEP_NUM_NODES is 1; or no launcher at all (a singleton, one process).
// False whenever it cannot tell (another launcher).
bool launch_is_on_one_machine(const EnvironmentLookup& environment);

// Whether to set OMPI_MCA_pml=ob1: a one-machine launch where the user has set neither OMPI_MCA_pml nor
// OMPI_MCA_mtl.
bool wants_shared_memory_transport(const EnvironmentLookup& environment);

// Sets OMPI_MCA_pml=ob1 in this process's environment when wants_shared_memory_transport says so. Call before
// MPI_Init (Open MPI reads its parameters there). Other MPI libraries ignore the variable.
void prefer_shared_memory_transport_on_one_machine();

}  // namespace graphrf
