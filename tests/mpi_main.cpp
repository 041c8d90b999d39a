// GoogleTest main for MPI tests: every rank runs every test. Rank 0 prints the report; other ranks print
// only their failures, tagged with the rank. The result is reduced with MAX so every rank exits alike.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>

#include "graphrf/mpi/mpi_environment.hpp"

namespace {
class RankTaggedFailures : public ::testing::EmptyTestEventListener {
 public:
  explicit RankTaggedFailures(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (r.failed())
      std::fprintf(stderr, "[rank %d] %s:%d: %s\n", rank_, r.file_name() ? r.file_name() : "?", r.line_number(),
                   r.summary());
  }

 private:
  int rank_;
};
}  // namespace

int main(int argc, char** argv) {
  graphrf::MpiEnvironment env(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new RankTaggedFailures(rank));
  }
  int local = RUN_ALL_TESTS();
  int global = 0;
  MPI_Allreduce(&local, &global, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return global;
}
