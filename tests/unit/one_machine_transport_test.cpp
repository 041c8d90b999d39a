// wants_shared_memory_transport: when the executable names Open MPI's shared-memory layer before MPI_Init (see
// one_machine_transport.hpp). tests/e2e/test_one_machine_transport.py watches real launches do it.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "graphrf/mpi/one_machine_transport.hpp"

namespace {

using graphrf::EnvironmentLookup;
using graphrf::launch_is_on_one_machine;
using graphrf::wants_shared_memory_transport;

// An environment holding exactly `variables`.
EnvironmentLookup environment_of(std::map<std::string, std::string> variables) {
  return [variables = std::move(variables)](const char* name) -> const char* {
    const auto found = variables.find(name);
    return found == variables.end() ? nullptr : found->second.c_str();
  };
}

TEST(OneMachineTransport, MpirunSaysHowManyRanksShareTheMachine) {
  EXPECT_TRUE(launch_is_on_one_machine(
      environment_of({{"OMPI_COMM_WORLD_SIZE", "4"}, {"OMPI_COMM_WORLD_LOCAL_SIZE", "4"}})));
  EXPECT_FALSE(launch_is_on_one_machine(
      environment_of({{"OMPI_COMM_WORLD_SIZE", "64"}, {"OMPI_COMM_WORLD_LOCAL_SIZE", "32"}})));
  EXPECT_FALSE(launch_is_on_one_machine(environment_of({{"OMPI_COMM_WORLD_SIZE", "4"}})));  // cannot tell
}

TEST(OneMachineTransport, MpirunInsideASlurmAllocationIsJudgedByMpirun) {
  // A batch job on two nodes whose script runs mpirun on one of them: mpirun's variables decide.
  EXPECT_TRUE(launch_is_on_one_machine(environment_of({{"SLURM_PROCID", "0"},
                                                       {"SLURM_STEP_NUM_NODES", "2"},
                                                       {"OMPI_COMM_WORLD_SIZE", "2"},
                                                       {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"}})));
  EXPECT_FALSE(launch_is_on_one_machine(environment_of({{"SLURM_PROCID", "0"},
                                                        {"SLURM_STEP_NUM_NODES", "1"},
                                                        {"OMPI_COMM_WORLD_SIZE", "8"},
                                                        {"OMPI_COMM_WORLD_LOCAL_SIZE", "4"}})));
}

TEST(OneMachineTransport, SrunSaysHowManyNodesTheStepSpans) {
  EXPECT_TRUE(launch_is_on_one_machine(
      environment_of({{"SLURM_PROCID", "1"}, {"SLURM_STEP_NUM_NODES", "1"}, {"PMIX_RANK", "1"}})));
  EXPECT_FALSE(launch_is_on_one_machine(
      environment_of({{"SLURM_PROCID", "1"}, {"SLURM_STEP_NUM_NODES", "16"}, {"PMIX_RANK", "1"}})));
  EXPECT_FALSE(launch_is_on_one_machine(environment_of({{"SLURM_PROCID", "0"}})));  // a batch script: unknown
}

TEST(OneMachineTransport, OtherLaunchersAreLeftAlone) {
  EXPECT_FALSE(launch_is_on_one_machine(environment_of({{"PMIX_RANK", "0"}})));
  EXPECT_FALSE(launch_is_on_one_machine(environment_of({{"PMI_RANK", "3"}})));
}

TEST(OneMachineTransport, AProcessStartedWithoutALauncherIsAlone) {
  EXPECT_TRUE(launch_is_on_one_machine(environment_of({})));
  EXPECT_TRUE(launch_is_on_one_machine(environment_of({{"HOME", "/root"}})));
}

TEST(OneMachineTransport, AUsersChoiceOfLayerIsKept) {
  const std::map<std::string, std::string> one_machine = {{"OMPI_COMM_WORLD_SIZE", "2"},
                                                          {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"}};
  EXPECT_TRUE(wants_shared_memory_transport(environment_of(one_machine)));
  auto with_pml = one_machine;
  with_pml["OMPI_MCA_pml"] = "ucx";  // what `mpirun --mca pml ucx` hands its ranks
  EXPECT_FALSE(wants_shared_memory_transport(environment_of(with_pml)));
  auto with_mtl = one_machine;
  with_mtl["OMPI_MCA_mtl"] = "psm2";
  EXPECT_FALSE(wants_shared_memory_transport(environment_of(with_mtl)));
  EXPECT_FALSE(wants_shared_memory_transport(
      environment_of({{"OMPI_COMM_WORLD_SIZE", "8"}, {"OMPI_COMM_WORLD_LOCAL_SIZE", "4"}})));
}

}  // namespace
