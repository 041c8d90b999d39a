#pragma once
// Distributed orthonormalisation of a tall-skinny N x b block X (N >> b) distributed by rows: X = Q R with
// Q^T Q = I and R upper triangular with a positive diagonal.
//
// Method: CholeskyQR2 (Fukaya, Nakatsukasa, Yanagisawa, Yamamoto 2014), with the shifted first pass of
// shifted CholeskyQR3 (Fukaya, Kannan, Nakatsukasa, Yamamoto, Yanagisawa 2020) when X is ill-conditioned.
// One pass: G = X^T X (a b x b reduction), R = chol(G), X <- X R^{-1}. Why CholeskyQR2 and not TSQR:
//  - communication: one reduction of a b x b matrix per pass (two or three passes), against a tree of
//    Householder QRs of stacked b x b triangles for TSQR;
//  - local work is a Gram product (BLAS-3) and a triangular solve; Eigen's dense kernels suffice and no
//    distributed Householder bookkeeping is needed;
//  - reproducibility: the Gram matrix comes from RowBlockReducer, so every rank factors the same bits, and
//    the row-local solve uses a fixed order of operations per row: Q does not depend on the rank count.
//    A TSQR tree shaped by the ranks would not give that.
// The cost is stability: one pass loses orthogonality like cond(X)^2 u, so passes repeat until one starts
// from a Gram matrix close to I (||X^T X - I||_F <= 0.5); that pass is accurate to O(u) and is the last.
// A well-conditioned X takes 2 passes (CholeskyQR2, fine for cond(X) up to about u^{-1/2} = 1e8). A pass
// whose Gram matrix is not numerically positive definite is shifted, G + s I with
// s = 11 (N b + b (b + 1)) u ||X||_F^2, as in shifted CholeskyQR3 (fine up to cond(X) about u^{-1}; 3 passes).
// Numerically rank-deficient X (say a repeated column) still gets an orthonormal Q with Q R = X, like
// Householder QR: R has a tiny diagonal entry and the matching column of Q is some direction orthogonal to
// the others (for a range finder that is harmless: extra orthonormal columns never increase
// ||(I - Q Q^T) A||). RankDeficientError is thrown only for a zero or non-finite column, or if no
// orthonormal Q is reached in 8 passes. All decisions depend on the Gram matrices only, which are the same
// bits on every rank, so every rank takes the same path.
#include <Eigen/Dense>

#include <string>

#include "graphrf/core/error.hpp"
#include "graphrf/mpi/reproducible_sum.hpp"

namespace graphrf {

class RankDeficientError : public Error {
 public:
  using Error::Error;
};

struct TallSkinnyQr {
  Eigen::MatrixXd q_local;  // this rank's rows of Q (n_local x b)
  Eigen::MatrixXd r;        // b x b upper triangular, positive diagonal; the same on every rank
  int passes = 0;           // Cholesky passes run (usually 2; 3 if ill-conditioned; 1 if X was orthonormal)
  bool shifted = false;     // whether some pass needed a shift
};

// Collective. sums describes the row layout of x_local (see reproducible_sum.hpp).
TallSkinnyQr tall_skinny_qr(const RowBlockReducer& sums, Eigen::MatrixXd x_local);

// X <- X R^{-1} for upper triangular R, row by row with a fixed order of operations (forward substitution
// over columns, rows in cache-sized chunks): row i of the result depends only on row i of X and on R.
void solve_upper_right(Eigen::MatrixXd& x, const Eigen::MatrixXd& r);

}  // namespace graphrf
