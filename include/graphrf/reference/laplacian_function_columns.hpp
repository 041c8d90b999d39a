#pragma once
// Exact columns of a matrix function h(L) of a graph Laplacian (spectrum in [0, lambda_max]) without forming
// the N x N matrix: h(L) e_j for a block of nodes j by a Chebyshev expansion applied through the
// distributed operator (Hammond, Vandergheynst and Gribonval 2011, "Wavelets on graphs via spectral graph
// theory", section 6). The interpolant's degree
// doubles from 16 until the upper half of its coefficients is negligible, then the expansion is cut at the
// first degree where the absolute coefficients that follow sum below `tolerance` times their total; since
// |T_k| <= 1 on the spectrum, that sum bounds the error of the columns in the 2-norm (plus the interpolant's
// own error, of the size of the coefficients beyond the last degree tried).
#include <Eigen/Dense>

#include <functional>

#include "graphrf/mpi/distributed_operator.hpp"

namespace graphrf {

struct FunctionColumns {
  Eigen::MatrixXd local;        // this rank's rows of h(L) X (n_local x b)
  int degree = 0;               // Chebyshev degree used
  double truncation_bound = 0;  // sum of the dropped |c_k|: bounds ||h(L) - p(L)||_2
};

inline constexpr int kMaxReferenceChebyshevDegree = 1024;

// h(L) X for this rank's rows x_local of X, L = `laplacian` with spectrum in [0, lambda_max] (2 for the
// normalised Laplacian). Collective.
FunctionColumns laplacian_function_columns(const DistributedOperator& laplacian, double lambda_max,
                                           const std::function<double(double)>& h, const Eigen::MatrixXd& x_local,
                                           double tolerance = 1e-12);

}  // namespace graphrf
