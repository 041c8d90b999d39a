#pragma once
// Chebyshev spectral moments of a symmetric operator from random probes (the kernel polynomial method:
// Weisse et al. 2006, "The kernel polynomial method", §II; Silver and Roeder 1994, "Densities of states of
// mega-dimensional Hamiltonian matrices"), and the
// eigencount of any low-pass filter evaluated from them without touching the operator again.
//
// With a probe block R (N x Lr) and the shifted Chebyshev polynomials Tb_k on [0, lambda_max],
//   mu_k = sum_l r_l^T Tb_k(L) r_l = tr(R^T Tb_k(L) R),   k = 0 .. 2M,
// from M products with R: Tb_m Tb_n = (Tb_{m+n} + Tb_{|m-n|}) / 2 gives
//   mu_{2m} = 2 <Tb_m R, Tb_m R> - mu_0,   mu_{2m-1} = 2 <Tb_m R, Tb_{m-1} R> - mu_1.
// For a filter p = c_0 / 2 + sum_{k<=M} c_k Tb_k (c_0 doubled, chebyshev.hpp's convention) the same identity
// gives ||p(L) R||_F^2 = sum_{i,j<=M} c'_i c'_j (mu_{i+j} + mu_{|i-j|}) / 2 with c'_0 = c_0 / 2, c'_k = c_k:
// exactly the quantity the filtered eigencount computes (same probes, same polynomial), for any cut-off,
// in O(M^2) flops instead of M products with an N x Lr block. Its mean over R is tr(p(L)^2), and the
// variance bound of spectrum_estimate.hpp carries over unchanged.
// Every inner product is a per-row sum (fixed order) reduced by RowBlockReducer: the moments, and so every
// count computed from them, have the same bits at any rank count and partition.
#include <Eigen/Dense>

#include <vector>

#include "graphrf/mpi/distributed_operator.hpp"
#include "graphrf/mpi/reproducible_sum.hpp"

namespace graphrf {

// mu_0 .. mu_{2 degree} for the probe block probes_local (this rank's rows). degree >= 1. Collective.
std::vector<double> chebyshev_moments(const DistributedOperator& op, const RowBlockReducer& sums, double lambda_max,
                                      const Eigen::MatrixXd& probes_local, int degree);

// ||p(L) R||_F^2 from the moments of R, for coefficients c_0 .. c_M (c_0 doubled) with 2M <= moments.size() - 1.
double filtered_norm_from_moments(const std::vector<double>& moments, const std::vector<double>& coeffs);

}  // namespace graphrf
