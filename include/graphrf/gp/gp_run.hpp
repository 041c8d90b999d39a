#pragma once
// One GP regression on the nodes of a graph with a GRF kernel K = sigma_f^2 M(beta), as `graphrf gp` runs it:
// walk once, take the observations (a file, or a synthetic sample of the GP), split them, learn the
// hyperparameters (log marginal likelihood by batched CG, stochastic Lanczos quadrature and Hutchinson probes,
// Adam), predict the posterior mean, pathwise samples and variances at every node, score the test nodes and,
// on small graphs, compare with the exact-kernel GP. gp_output.hpp writes the result.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "graphrf/core/report.hpp"
#include "graphrf/gp/exact_gp_comparison.hpp"
#include "graphrf/gp/gp_learning.hpp"
#include "graphrf/gp/gp_observations.hpp"
#include "graphrf/gp/gp_parameters.hpp"
#include "graphrf/gp/gp_prediction.hpp"
#include "graphrf/gp/synthetic_observations.hpp"
#include "graphrf/gp/target_scaling.hpp"
#include "graphrf/mpi/log.hpp"
#include "graphrf/mpi/run_summary.hpp"

namespace graphrf {

struct GpRunOptions {
  KernelSpec kernel;           // its beta is the starting beta
  WalkOptions walk;
  std::string observations;    // CSV or HDF5 observations (see gp_observations.hpp); empty: synthetic
  SyntheticGp synthetic;       // with synthetic.share > 0, the data are drawn from this GP instead
  SplitSpec split;
  double sigma_f = 1, sigma_n = 0.1;  // starting values
  GpLearn learn = GpLearn::hyper;
  AdamSchedule schedule;       // no learning with 0 iterations
  LmlOptions lml;
  GpPredictionOptions prediction;
  bool reference = false;      // also the exact-kernel GP on rank 0 (the caller checks the graph is small)
  bool normalize_y = true;     // fit (y - mean) / sd of the training targets, as scikit-learn's normalize_y
  std::int64_t exact_variance_max_tests = 5000;  // exact variances cost one CG solve per test node
  std::uint64_t memory_limit = 0;  // --memory-limit per rank (0: the node's, memory_limit.hpp)
};

struct GpRun {
  LocalObservations observations;   // as given, in the user's units
  GpPrediction prediction;          // mean, samples and variances in the user's units
  bool exact_variance = false;      // the variance reported is the exact one at the test nodes
  int samples = 0;                  // pathwise samples per node
  GpLearn learn = GpLearn::hyper;
  std::size_t n_parameters = 0;     // entries of the learned parameter vector
  std::vector<double> f;            // the learned modulation f_0..f_T
  double sigma_f = 0, beta = 0, sigma_n = 0;  // learned; of the standardised targets with normalize_y
  bool normalize_y = true;
  TargetScaling scaling;            // identity without normalize_y
  LearningTrace trace;              // one entry per Adam iteration
  GpMetrics metrics;                // test figures, in the user's units
  std::optional<ExactGpComparison> reference;  // in the user's units
  PhaseTimes phases;                // walk, learn, predict, reference
  double memory_estimate_mib = 0, peak_mib = 0;  // per rank, the largest over ranks (gp_memory.hpp)
  // nodes, train, test, theta, times, CG iterations, last LML, test metrics and the reference's figures, with
  // their attributes under /gp/theta, /gp/metrics and /gp/reference.
  Report report;

  // The variance written to /gp/variance: exact at the test nodes with exact_variance, else from the samples.
  const Eigen::VectorXd& variance() const { return exact_variance ? prediction.exact_variance : prediction.variance; }
};

// Collective. Logs each phase on rank 0. InputError (collective) on bad observations, and before walking when the
// memory estimate (gp_memory.hpp) exceeds the memory limit.
GpRun run_gp_regression(const DistributedGraph& g, const GpRunOptions& options, const Log& log);

}  // namespace graphrf
