// GoogleTest main for tests that need no MPI launcher. MPI is still initialised (as a singleton) because
// some library types take a Communicator; the tests here never communicate.
#include <gtest/gtest.h>

#include "graphrf/mpi/mpi_environment.hpp"

int main(int argc, char** argv) {
  graphrf::MpiEnvironment env(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
