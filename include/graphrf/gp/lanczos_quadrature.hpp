#pragma once
// Stochastic Lanczos quadrature (Ubaru, Chen and Saad 2017): for a probe z, z^T log(A) z is approximated by
// ||z||^2 e_1^T log(T) e_1, where T is the Lanczos tridiagonal matrix of A started at z / ||z||. T comes for free
// from conjugate gradients on A x = z (Gardner et al. 2018, section 4): with CG step sizes alpha_j and
// beta_j = ||r_{j+1}||^2 / ||r_j||^2,
//   T_jj = 1 / alpha_j + beta_{j-1} / alpha_{j-1},   T_{j,j+1} = sqrt(beta_j) / alpha_j.
// Averaging over probes with E[z z^T] = I estimates log det A = tr log A (Hutchinson).
#include <vector>

namespace graphrf {

// e_1^T log(T) e_1 for the tridiagonal matrix of one CG run (alpha and beta as CgResult keeps them; beta may
// have one entry more than alpha is used for). Requires at least one step; T must be positive definite.
double lanczos_log_quadrature(const std::vector<double>& alpha, const std::vector<double>& beta);

}  // namespace graphrf
