#pragma once
// The log marginal likelihood of GRF-GP regression and its gradient, from one batched CG solve
// (Gardner et al. 2018, BBMM): with A = Phi_x Phi_x^T + sigma_n^2 I on the n training nodes,
//   LML = -1/2 y^T A^-1 y - 1/2 log det A - n/2 log 2 pi.
// CG solves A [a, u_1..u_P] = [y, z_1..z_P] together, for P probes z_p (Rademacher: E[z z^T] = I).
//   data fit      -1/2 y^T a (exact up to the CG tolerance);
//   log det A     Hutchinson + stochastic Lanczos quadrature from the probes' CG coefficients;
//   dLML/df_t     a^T M_t c - (1/P) sum_p u_p^T M_t C_p, with c = Phi_x^T a and C_p = Phi_x^T z_p, because
//                 dA/df_t = M_t,x Phi_x^T + Phi_x M_t,x^T and tr(A^-1 dA/df_t) = 2 E[u^T M_t,x Phi_x^T z];
//   dLML/dlog sigma_n = sigma_n^2 (a^T a - (1/P) sum_p z_p^T u_p).
// With probes = 0 the probes are the unit vectors of the training nodes: the trace terms are then exact and
// the log-determinant is exact up to the Lanczos quadrature (for checks and small problems; n solves).
#include <Eigen/Dense>
#include <cstdint>

#include "graphrf/gp/batched_conjugate_gradient.hpp"
#include "graphrf/gp/gp_system.hpp"
#include "graphrf/mpi/reproducible_sum.hpp"

namespace graphrf {

struct LmlOptions {
  int probes = 16;           // 0: exact (unit vectors of the training nodes)
  std::uint64_t seed = 1;    // probes are keyed by (seed, canonical node index, probe, draw)
  CgOptions cg;
};

struct LmlEstimate {
  double lml = 0, data_fit = 0, log_det = 0;
  Eigen::VectorXd grad_f;          // dLML / df_t, t = 0..T
  double grad_log_sigma_n = 0;
  int cg_iterations = 0;           // the most any column took
  bool converged = true;
};

// Collective. phi carries the current f; `draw` selects fresh probes (e.g. the learning iteration). Every sum
// is over the training nodes, in data.space (built for this call if none is attached).
LmlEstimate estimate_lml(const GrfFeatureOperator& phi, const GpData& data,
                         double sigma_n, const LmlOptions& options, std::uint64_t draw);

// Probe block (n_local x P) as estimate_lml draws it: Rademacher signs on the training nodes, or for probes = 0
// the unit vectors of the training nodes in canonical order. Collective.
Eigen::MatrixXd gp_probes(const DistributedGraph& g, const GpData& data, int probes, std::uint64_t seed,
                          std::uint64_t draw);

}  // namespace graphrf
