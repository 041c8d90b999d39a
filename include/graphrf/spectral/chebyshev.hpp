#pragma once
// Chebyshev polynomial filters p(L) X on the spectrum interval [0, lambda_max] (Jackson damping as in
// Di Napoli, Polizzi, Saad 2016, "Efficient estimation of eigenvalue counts in an interval"; GSPBox gsp_cheby_op / gsp_jackson_cheby_coeff, PyGSP compute_cheby_coeff).
//
// With a1 = a2 = lambda_max / 2 the shifted polynomials are Tb_k(x) = T_k((x - a2) / a1), and a filter of
// degree M is p(x) = c_0 / 2 + sum_{k=1}^{M} c_k Tb_k(x). Convention: c_0 is stored doubled (coefficient
// vectors hold c_0 .. c_M, so a vector of size M + 1 is a degree-M filter).
#include <Eigen/Dense>

#include <functional>
#include <vector>

#include "graphrf/mpi/distributed_operator.hpp"

namespace graphrf {

// Coefficients of the degree-`degree` Chebyshev interpolant of a smooth g on [0, lambda_max] (5.2):
// c_k = (2 / Ng) sum_{n<Ng} g(a1 cos(theta_n) + a2) cos(k theta_n), theta_n = pi (n + 1/2) / Ng, with
// Ng = quadrature_points (0: degree + 1, the PyGSP choice). degree >= 0, lambda_max > 0.
std::vector<double> chebyshev_coefficients(const std::function<double(double)>& g, int degree, double lambda_max,
                                           int quadrature_points = 0);

// Jackson-Chebyshev coefficients of the ideal band-pass 1_[a, b] on [0, lambda_max] (5.3): the Chebyshev
// series of the indicator damped by the Jackson kernel, which removes the Gibbs overshoot (the filter stays
// in [0, 1]). a < b; the band is clipped to [0, lambda_max]. a = 0 gives a low-pass filter.
std::vector<double> jackson_chebyshev_coefficients(double a, double b, int degree, double lambda_max);

// p(x) for a scalar x in [0, lambda_max], by the same three-term recurrence as chebyshev_filter.
double chebyshev_eval(const std::vector<double>& coeffs, double lambda_max, double x);

// p_f(Op) X for every coefficient set f, in one pass of the recurrence (max degree applications of Op, two
// n_local x b row-major work panels plus the outputs; see chebyshev_recurrence.hpp). Collective. x_local is this rank's rows of X. Each output
// is computed elementwise from the recurrence blocks, so row i of the result depends on the rank count only
// through op.apply.
std::vector<Eigen::MatrixXd> chebyshev_filter(const DistributedOperator& op, double lambda_max,
                                              const std::vector<std::vector<double>>& coeff_sets,
                                              const Eigen::MatrixXd& x_local);

}  // namespace graphrf
