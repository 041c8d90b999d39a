#include "graphrf/grf/grf_pipeline.hpp"

#include <Eigen/Sparse>

#include <cmath>
#include <limits>
#include <optional>

#include "graphrf/grf/dense_gather.hpp"
#include "graphrf/grf/grf_memory.hpp"
#include "graphrf/grf/grf_row_assembler.hpp"
#include "graphrf/grf/peer_rows.hpp"
#include "graphrf/grf/spectral_radius.hpp"
#include "graphrf/core/timer.hpp"

namespace graphrf {

GrfEstimator parse_estimator(std::string_view s) {
  if (s == "symmetric") return GrfEstimator::symmetric;
  if (s == "two-ensembles") return GrfEstimator::two_ensembles;
  if (s == "asymmetric") return GrfEstimator::asymmetric;
  throw InputError("--estimator: unknown estimator '" + std::string(s) +
                   "' (expected symmetric, two-ensembles or asymmetric)");
}

const char* estimator_name(GrfEstimator e) {
  switch (e) {
    case GrfEstimator::symmetric: return "symmetric";
    case GrfEstimator::two_ensembles: return "two-ensembles";
    case GrfEstimator::asymmetric: return "asymmetric";
  }
  return "?";
}

namespace {

// Which owned rows start walkers (empty when every row does).
std::vector<bool> rows_starting_walkers(const DistributedGraph& g, const WalkOptions& walk) {
  if (walk.start_every == 1) return {};
  std::vector<bool> starts(static_cast<size_t>(g.n_local()));
  for (std::int64_t i = 0; i < g.n_local(); ++i)
    starts[static_cast<size_t>(i)] = starts_walkers(walk, g.canonical_index[static_cast<size_t>(i)]);
  return starts;
}

}  // namespace

GrfRun compute_grf(const DistributedGraph& g, const KernelSpec& kernel, const WalkOptions& walk, GrfEstimator estimator,
                   const Log& log, const WalkLimits& limits, LengthResolvedRows length_resolved, const WalkArcs* arcs) {
  const Communicator& comm = *g.comm;
  GrfRun run;
  run.estimator = estimator;
  // A kernel of D - A walked on W = I - (D - A)/d_max must carry that d_max, or beta would silently act unscaled.
  if (walk.weights == WeightMode::combinatorial && kernel.laplacian_scale != walk.max_degree)
    throw Error("compute_grf: --weights combinatorial needs the kernel and walks bound to d_max (bind_combinatorial_laplacian)");
  const double rho = spectral_radius(g, walk);
  const int terms = static_cast<int>(walk.max_length) + 1;
  collective_try(comm, [&] {
    if (g.n_global() >= (std::int64_t{1} << 43))  // grf_matrix packs (column, step) into one 64-bit key
      throw InputError("--graph: GRFs support up to 2^43 nodes (got " + std::to_string(g.n_global()) + ")");
    validate(kernel, rho);
    run.spectral_radius = rho;
    run.truncation_bias_bound = truncation_bias_bound(kernel, estimator, walk.max_length, rho);
    run.alpha = kernel_alpha(kernel, terms);
    run.f = estimator == GrfEstimator::asymmetric ? run.alpha : kernel_f(kernel, terms);
  });
  if (has_negative(run.f))
    log.warn(std::string(estimator == GrfEstimator::asymmetric ? "alpha" : "f") +
             " has negative entries: the masked-attention normaliser can be negative");
  std::optional<WalkArcs> own_arcs;
  if (!arcs || !arcs->serves(g, walk)) arcs = &own_arcs.emplace(g, walk);
  for (int e = 0; e < ensembles(estimator); ++e) {
    WalkOptions o = walk;
    o.ensemble = walk.ensemble + static_cast<std::uint64_t>(e);  // heads pass their own base ensemble
    // Rows are assembled while the walks run, each as soon as its walkers have all ended.
    GrfRowAssembler assembler(g.first(), g.n_local(), walk.walkers, run.f, open_row_limit(walk, limits),
                              limits.output_entries > 0 ? limits.output_entries : expected_entries(walk, g.n_local()),
                              rows_starting_walkers(g, walk), length_resolved);
    // On one host, a rank that runs out of its own rows walks and builds the back end of a peer's, then hands
    // them over (peer_rows.hpp).
    assembler.build_rows_for_peers();
    WalkResult result = run_walks(g, o, log, limits, &assembler, arcs);
    run.walks.push_back(result.stats);
    Timer timer;
    AssembledGrf rows;
    collective_try(comm, [&] { rows = assembler.finish(result.own_rows_end); });
    if (result.stats.rows_walked_by_peers > 0) {
      std::vector<PeerRows> built;
      collective_try(comm, [&] { built = assembler.finish_peer_rows(); });
      collective_try(comm, [&] {
        rows = return_peer_rows(comm, std::move(rows), result.own_rows_end, g.n_local(), std::move(built));
      });
    }
    run.by_length.push_back(std::move(rows.by_length));
    run.phi.push_back(std::move(rows.phi));
    run.assemble_seconds += comm.max(timer.seconds());
  }
  return run;
}

NnzSummary nnz_per_row(const Communicator& comm, const SparseRows& rows) {
  std::int64_t lo = INT64_MAX, hi = 0;
  for (std::int64_t i = 0; i < rows.n_local(); ++i) {
    const auto nnz = rows.indptr[static_cast<size_t>(i) + 1] - rows.indptr[static_cast<size_t>(i)];
    lo = std::min(lo, nnz);
    hi = std::max(hi, nnz);
  }
  NnzSummary s;
  s.min = comm.min(lo);
  s.max = comm.max(hi);
  s.total = comm.sum(static_cast<std::int64_t>(rows.col.size()));
  s.mean = static_cast<double>(s.total) / static_cast<double>(comm.sum(rows.n_local()));
  return s;
}

double sparsity_bound(std::int64_t walkers, double p_halt, double delta) {
  if (p_halt == 0.0) return std::numeric_limits<double>::infinity();  // fixed-length walks: bounded by 1 + n T instead
  const double b = std::log(1.0 - std::pow(1.0 - delta, 1.0 / static_cast<double>(walkers))) / std::log(1.0 - p_halt);
  return 1.0 + static_cast<double>(walkers) * b;
}

double truncation_bias_bound(const KernelSpec& kernel, GrfEstimator estimator, std::int64_t max_length,
                             double spectral_radius) {
  const auto t_max = static_cast<size_t>(max_length);
  const int terms = static_cast<int>(max_length + 400);
  // |c| rho^k in the log domain: rho^k alone overflows for rho > 1 long before the product does.
  const double log_rho = std::log(spectral_radius);
  const auto weighted = [&](double c, size_t k) {
    return c == 0.0 ? 0.0 : std::exp(std::log(std::abs(c)) + static_cast<double>(k) * log_rho);
  };
  if (estimator == GrfEstimator::asymmetric) {  // the expectation keeps alpha_k for k <= T
    const std::vector<double> alpha = kernel_alpha(kernel, terms);
    double bound = 0;
    for (size_t k = t_max + 1; k < alpha.size(); ++k) bound += weighted(alpha[k], k);
    return bound;
  }
  // Symmetric estimators keep the pairs f_t f_s with t, s <= T. The dropped pairs (t > T or s > T) weigh at
  // most (kept + tail)^2 - kept^2 = tail (2 kept + tail), with kept and tail the sums of |f_t| rho^t over
  // t <= T and t > T: linear in T (the pairwise sum is quadratic: 8 s at T = 10^5), equal to the pairwise
  // bound when f >= 0 and above it otherwise.
  const std::vector<double> f = kernel_f(kernel, terms);
  double kept = 0, tail = 0;
  for (size_t t = 0; t < f.size(); ++t) (t <= t_max ? kept : tail) += weighted(f[t], t);
  return tail * (2.0 * kept + tail);
}

Eigen::MatrixXd dense_kernel_estimate(const DistributedGraph& g, const GrfRun& run) {
  const Communicator& comm = *g.comm;
  const Eigen::MatrixXd phi1 = gather_dense_rows(comm, run.phi[0], g.first(), g.n_global());
  if (run.estimator == GrfEstimator::asymmetric) return phi1;
  // Products through sparse matrices: Phi has a few nonzeros per row, and a dense N^3 product per estimate
  // made bench-couplings on cora (N = 2708, 1200 estimates) take an hour.
  using Sparse = Eigen::SparseMatrix<double>;
  if (run.estimator == GrfEstimator::symmetric) {
    if (!comm.is_root()) return phi1;
    const Sparse s = phi1.sparseView();
    return Sparse(s * s.transpose()).toDense();
  }
  const Eigen::MatrixXd phi2 = gather_dense_rows(comm, run.phi[1], g.first(), g.n_global());
  if (!comm.is_root()) return phi1;
  const Sparse s1 = phi1.sparseView(), s2 = phi2.sparseView();
  const Eigen::MatrixXd k = Sparse(s1 * s2.transpose()).toDense();
  return 0.5 * (k + k.transpose());
}

}  // namespace graphrf
