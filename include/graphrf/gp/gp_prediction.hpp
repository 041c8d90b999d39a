#pragma once
// GRF-GP prediction at every node, with K^ = Phi Phi^T and A = Phi_x Phi_x^T + sigma_n^2 I:
//   mean      mu = Phi (Phi_x^T a), A a = y (one CG solve);
//   samples   pathwise conditioning (Wilson et al. 2020): a prior sample g = Phi eps, eps ~ N(0, I_N) (exact,
//             since Cov(Phi eps) = Phi Phi^T), is moved to g + Phi (Phi_x^T w) with A w = y - g_x - e,
//             e ~ N(0, sigma_n^2 I); one CG solve per sample, all batched with the mean's solve;
//   variance  of the latent function: (1/S) sum_s (g_s - mu)^2 over the S samples (unbiased: E g_s = mu);
//   exact     with exact_variance, at the test nodes: K^_jj - k_j^T A^-1 k_j, k_j = Phi_x Phi_j^T, one solve per
//             test node (batched).
// Draws are keyed by (seed, canonical node index, sample), so samples do not depend on the ranks.
#include <Eigen/Dense>
#include <cstdint>

#include "graphrf/gp/gp_system.hpp"
#include "graphrf/mpi/reproducible_sum.hpp"

namespace graphrf {

struct GpPredictionOptions {
  int samples = 64;
  bool exact_variance = false;
  std::uint64_t seed = 1;
  CgOptions cg;
};

struct GpPrediction {
  Eigen::VectorXd mean, variance;  // this rank's nodes; variance is NaN without samples
  Eigen::MatrixXd samples;         // n_local x S
  Eigen::VectorXd exact_variance;  // NaN except at test nodes when requested
  int cg_iterations = 0;           // the most any column of the batched solve took
  int exact_cg_iterations = 0;
  bool converged = true;
};

// Collective. test marks this rank's test nodes (used by exact_variance). phi's subset S should be the training
// nodes (GrfFeatureOperator::restrict_rows); exact_variance restricts it to the test nodes for one product and
// then to data.train.
GpPrediction predict_gp(GrfFeatureOperator& phi, const GpData& data, double sigma_n,
                        const Eigen::VectorXd& test, const GpPredictionOptions& options);

// Test-set figures for the predictive distribution N(mean, latent variance + sigma_n^2).
struct GpMetrics {
  std::int64_t n_test = 0;
  double rmse = 0;
  double nlpd = 0;      // mean negative log predictive density
  double coverage = 0;  // share of test values inside the central 95% predictive interval
};
// Collective; y holds the observed values of this rank's test nodes (others ignored). No test nodes: NaN figures.
GpMetrics gp_metrics(const RowBlockReducer& reducer, const Eigen::VectorXd& mean, const Eigen::VectorXd& variance,
                     double sigma_n, const Eigen::VectorXd& y, const Eigen::VectorXd& test);

}  // namespace graphrf
