#pragma once
// Conjugate gradients on many right-hand sides at once (the BBMM approach of Gardner et al. 2018, GPyTorch):
// every iteration makes one block product A P for all unconverged columns, so the cost of moving rows between
// ranks is paid once per iteration rather than once per column. Each column keeps its own step sizes and stops
// when ||r|| <= tolerance ||b||. The step sizes (alpha_j, beta_j) of each column are kept: they define the
// Lanczos tridiagonal matrix of A started at b / ||b|| (Saad 2003, section 6.7.3), which stochastic Lanczos
// quadrature uses for log-determinants.
//
// No preconditioner: A = Phi_x Phi_x^T + sigma_n^2 I has every eigenvalue >= sigma_n^2, and its diagonal
// (sigma_f^2 M_ii + sigma_n^2) varies little over nodes for the normalised-adjacency kernels, so a Jacobi
// preconditioner would change little; the iteration counts are reported so that this can be checked.
//
// Algorithms only: the operator and the dot products are given as functions, so the same code runs on dense
// matrices in unit tests and on distributed blocks (where dots must return the same values on every rank).
#include <Eigen/Dense>
#include <functional>
#include <vector>

#include "graphrf/mpi/reproducible_sum.hpp"

namespace graphrf {

using BlockOperator = std::function<Eigen::MatrixXd(const Eigen::MatrixXd&)>;
// diag(X^T Y) for two blocks with the same layout.
using ColumnDots = std::function<Eigen::VectorXd(const Eigen::MatrixXd&, const Eigen::MatrixXd&)>;

struct CgOptions {
  double tolerance = 1e-6;  // relative residual per column
  int max_iterations = 1000;
};

struct CgResult {
  Eigen::MatrixXd x;
  std::vector<int> iterations;                 // per column
  std::vector<std::vector<double>> alpha, beta;  // per column, one entry per iteration
  bool converged = true;                       // every column reached the tolerance
  int most_iterations() const;
};

// Solves A X = B for symmetric positive definite A, starting from X = 0.
CgResult batched_conjugate_gradient(const BlockOperator& a, const Eigen::MatrixXd& b, const ColumnDots& dots,
                                    const CgOptions& options);

// diag(X^T Y) over a row-distributed block, bitwise the same for any rank count and partition.
ColumnDots reproducible_column_dots(const RowBlockReducer& reducer);

}  // namespace graphrf
