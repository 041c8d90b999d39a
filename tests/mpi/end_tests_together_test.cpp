// The guard of mpi_main.cpp against a test that fails on some ranks only. Disabled in the suite: it fails by
// design and ends the job. ctest's mpi_desync_guard runs it alone at np 2 and expects the guard's abort line,
// within seconds rather than at the suite's timeout.
#include <gtest/gtest.h>
#include <mpi.h>

TEST(EndTestsTogether, DISABLED_ARankThatFailsAloneEndsTheJob) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) GTEST_SKIP() << "needs two ranks";
  // Rank 1 fails before the collective that the others enter: they would wait in it for ever.
  ASSERT_NE(rank, 1) << "failed on rank 1 alone, by design";
  MPI_Barrier(MPI_COMM_WORLD);
}
