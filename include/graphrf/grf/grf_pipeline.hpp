#pragma once
// From a kernel and walk options to GRF matrices: choose f, walk (one or two ensembles), assemble
// length-resolved rows, combine with f, and optionally compare with the exact kernel on small graphs.
//   symmetric      Phi with f = sqrt-deconvolution of alpha; kernel estimate Phi Phi^T (Reid et al. 2025a,
//                  "Linear transformer topological masking with graph random features", Lemma 3.1)
//   two-ensembles  two independent ensembles; Phi1 Phi2^T is unbiased on the diagonal too
//   asymmetric     one side one-hot, the other f = alpha; the kernel estimate is Phi itself
//                  (Reid et al. 2025a, App. D)
#include <Eigen/Dense>
#include <string_view>
#include <vector>

#include "graphrf/graph/distributed_graph.hpp"
#include "graphrf/grf/grf_matrix.hpp"
#include "graphrf/grf/kernel.hpp"
#include "graphrf/mpi/log.hpp"
#include "graphrf/walks/walk_engine.hpp"

namespace graphrf {

enum class GrfEstimator { symmetric, two_ensembles, asymmetric };
GrfEstimator parse_estimator(std::string_view);  // InputError naming --estimator
const char* estimator_name(GrfEstimator);

struct GrfRun {
  GrfEstimator estimator = GrfEstimator::symmetric;
  std::vector<double> alpha;                 // alpha_0..alpha_T of the kernel (T = max_length)
  std::vector<double> f;                     // the modulation the rows were combined with
  std::vector<LengthResolvedGrf> by_length;  // one per ensemble (empty under LengthResolvedRows::drop)
  std::vector<SparseRows> phi;               // one per ensemble
  std::vector<WalkStatistics> walks;         // one per ensemble
  double assemble_seconds = 0;              // after the walks (rows are assembled while they run)
  double spectral_radius = 0;        // of W
  double truncation_bias_bound = 0;  // bound on ||E[estimate] - M||_2 from stopping walks at max_length
};

// Validates the kernel against W's spectral radius and warns about negative f. Collective. With
// LengthResolvedRows::drop, by_length holds empty matrices and only Phi is built (the same bits). `arcs`: the
// walk engine's arc table for this graph, when the caller keeps one (else one is built and serves every
// ensemble).
GrfRun compute_grf(const DistributedGraph& g, const KernelSpec& kernel, const WalkOptions& walk, GrfEstimator estimator,
                   const Log& log, const WalkLimits& limits = {},
                   LengthResolvedRows length_resolved = LengthResolvedRows::keep, const WalkArcs* arcs = nullptr);

// nnz per row over all ranks.
struct NnzSummary {
  std::int64_t min = 0, max = 0, total = 0;
  double mean = 0;
};
NnzSummary nnz_per_row(const Communicator& comm, const SparseRows& rows);
// Reid et al. 2025a, Lemma 3.3: with probability >= 1 - delta all n walks from a node have at most b hops,
// so a row has at most 1 + n*b nonzeros, b = ln(1 - (1-delta)^(1/n)) / ln(1-p).
double sparsity_bound(std::int64_t walkers, double p_halt, double delta);

// A bound on ||E[estimate] - M||_2 from stopping walks after T = max_length hops, with rho the spectral radius
// of W. Asymmetric estimator: sum_{k > T} |alpha_k| rho^k. Symmetric ones keep the products f_t f_s with
// t, s <= T; the bound is the weight of the dropped pairs, sum over t > T or s > T of |f_t f_s| rho^(t+s)
// (the triangle inequality over sum_k |alpha_k - kept_k| rho^k; equal to it when f >= 0). Series to T + 400
// terms.
double truncation_bias_bound(const KernelSpec& kernel, GrfEstimator estimator, std::int64_t max_length,
                             double spectral_radius);

// The kernel estimate as a dense matrix on rank 0 (Phi Phi^T, Phi1 Phi2^T symmetrised, or Phi).
Eigen::MatrixXd dense_kernel_estimate(const DistributedGraph& g, const GrfRun& run);

}  // namespace graphrf
