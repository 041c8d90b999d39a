// The `grf` run as a library call on one process: its figures in the RESULT order with the attributes they go
// to, the memory check before walking, and the --reference check (a sample of every node is the dense error).
#include "graphrf/grf/grf_run.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "graphrf/core/error.hpp"
#include "graphrf/reference/grf_reference.hpp"
#include "method_run_support.hpp"

using namespace graphrf;

namespace {

using testing_support::grid;
using testing_support::keys;
using testing_support::silent;

GrfRunOptions small_run() {
  GrfRunOptions o;
  o.walk.walkers = 8;
  o.walk.p_halt = 0.3;
  o.walk.max_length = 20;
  return o;
}

}  // namespace

TEST(GrfRun, FiguresInResultOrderWithTheirAttributes) {
  Communicator self(MPI_COMM_SELF);
  const DistributedGraph g = grid(self);
  const GrfResult r = run_grf(g, small_run(), silent());
  EXPECT_EQ(keys(r.report), (std::vector<std::string>{"nodes", "walks", "walkers_per_node", "hops", "nnz_mean", "nnz_max",
                                                      "walk_seconds", "assemble_seconds", "memory_estimate_mib",
                                                      "memory_bound_mib", "peak_mib", "peak_vs_bound"}));
  EXPECT_EQ(std::get<std::int64_t>(r.report.find("nodes")->value), 42);
  EXPECT_EQ(std::get<std::int64_t>(r.report.find("walks")->value), 42 * 8);
  EXPECT_LE(static_cast<double>(r.nnz.min), r.nnz.mean);
  EXPECT_LE(r.nnz.mean, static_cast<double>(r.nnz.max));
  EXPECT_LE(r.nnz.max, 42);
  const Figure& mean = *r.report.find("nnz_mean");
  ASSERT_EQ(mean.attributes.size(), 1u);
  EXPECT_EQ(mean.attributes[0].object, "/grf");
  EXPECT_EQ(mean.attributes[0].name, "nnz_per_row_mean");
  EXPECT_TRUE(r.report.find("walk_seconds")->attributes.empty());
  EXPECT_TRUE(r.run.by_length[0].value.empty());  // M_t only when asked for
}

TEST(GrfRun, RefusesBeforeWalkingWhatCannotFit) {
  Communicator self(MPI_COMM_SELF);
  const DistributedGraph g = grid(self);
  GrfRunOptions o = small_run();
  o.memory_limit = 4096;
  o.dense_reference_matrices = 5;
  try {
    run_grf(g, o, silent());
    FAIL() << "no InputError";
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("--memory-limit"), std::string::npos) << message;
    EXPECT_NE(message.find("and the dense reference on rank 0"), std::string::npos) << message;
  }
}

TEST(GrfReference, SampleOfEveryNodeGivesTheDenseError) {
  Communicator self(MPI_COMM_SELF);
  const DistributedGraph g = grid(self);
  const GrfRunOptions o = small_run();
  const GrfResult run = run_grf(g, o, silent());
  ReferenceOptions dense;
  dense.enabled = true;
  ReferenceOptions sampled = dense;
  sampled.dense_max = 10;
  sampled.samples = 1000;
  EXPECT_EQ(grf_dense_reference_matrices(dense, 42), kDenseReferenceMatrices);
  EXPECT_EQ(grf_dense_reference_matrices(sampled, 42), 0.0);
  const GrfReference d = grf_kernel_reference(g, run, o, dense, silent());
  const GrfReference s = grf_kernel_reference(g, run, o, sampled, silent());
  EXPECT_EQ(keys(d.report), (std::vector<std::string>{"kernel_error", "reference_sampled"}));
  EXPECT_EQ(keys(s.report), (std::vector<std::string>{"kernel_error", "reference_sampled", "kernel_error_se", "reference_samples"}));
  EXPECT_EQ(d.exact.rows(), 42);
  EXPECT_EQ(std::get<std::int64_t>(s.report.find("reference_samples")->value), 42);
  const double de = std::get<double>(d.report.find("kernel_error")->value), se = std::get<double>(s.report.find("kernel_error")->value);
  EXPECT_GT(de, 0);
  EXPECT_NEAR(se, de, 1e-6 * de);
  EXPECT_EQ(std::get<double>(s.report.find("kernel_error_se")->value), 0.0);
  EXPECT_EQ(d.report.find("kernel_error")->attributes.size(), 2u);  // /kernel and the file's root
}
