// GoogleTest main for MPI tests: every rank runs every test. Rank 0 prints the report; other ranks print
// only their failures, tagged with the rank. The result is reduced with MAX so every rank exits alike.
//
// A test that fails on some ranks only (an ASSERT or an exception on one rank) leaves the others inside it,
// blocked in a collective the failed rank never joins; the failed rank would go on to the next test and the
// job would hang until ctest's timeout. So every rank waits at the end of each test for the others to end it
// too, on a communicator of its own, and ends the whole job when they do not within a grace period.
#include <gtest/gtest.h>
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

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

// Seconds a rank that ended a test waits for the others to end it. Ranks of a passing test end it within
// moments of each other (its last collective); GRAPHRF_TEST_DESYNC_SECONDS overrides, for the test of this guard.
double desync_seconds() {
  const char* s = std::getenv("GRAPHRF_TEST_DESYNC_SECONDS");
  return s ? std::atof(s) : 120.0;
}

class EndTestsTogether : public ::testing::EmptyTestEventListener {
 public:
  // `comm`: a communicator no test uses, so that this barrier never meets a test's collective.
  EndTestsTogether(MPI_Comm comm, int rank) : comm_(comm), rank_(rank), grace_(desync_seconds()) {}

  void OnTestEnd(const ::testing::TestInfo& test) override {
    MPI_Request barrier = MPI_REQUEST_NULL;
    MPI_Ibarrier(comm_, &barrier);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(grace_);
    for (int done = 0;;) {
      MPI_Test(&barrier, &done, MPI_STATUS_IGNORE);
      if (done) return;
      if (std::chrono::steady_clock::now() > deadline) break;
      // Sleep rather than spin: with more ranks than cores the others need the core to finish the test.
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    std::fprintf(stderr,
                 "[rank %d] %s.%s ended here (%s) but other ranks are still inside it after %.0f s: a failure on "
                 "some ranks only leaves the others in a collective. Aborting the job.\n",
                 rank_, test.test_suite_name(), test.name(), test.result()->Failed() ? "failed" : "passed", grace_);
    std::fflush(stderr);
    graphrf::MpiEnvironment::abort(1);
  }

 private:
  MPI_Comm comm_;
  int rank_;
  double grace_;
};

}  // namespace

int main(int argc, char** argv) {
  graphrf::MpiEnvironment env(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
  if (rank != 0) {
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new RankTaggedFailures(rank));
  }
  // Freed here, not by the listener: gtest destroys its listeners after MPI_Finalize.
  MPI_Comm test_ends = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &test_ends);
  listeners.Append(new EndTestsTogether(test_ends, rank));
  int local = RUN_ALL_TESTS();
  MPI_Comm_free(&test_ends);
  int global = 0;
  MPI_Allreduce(&local, &global, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return global;
}
