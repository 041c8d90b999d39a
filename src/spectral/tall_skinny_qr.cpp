// CholeskyQR2 with a shifted first pass when needed (shifted CholeskyQR3). See tall_skinny_qr.hpp for the
// choice of method.
#include "graphrf/spectral/tall_skinny_qr.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace graphrf {

namespace {
// A pass that starts from ||X^T X - I||_F <= 0.5 (eigenvalues of X^T X in [0.5, 1.5], cond(X)^2 <= 3) leaves
// X orthonormal to O(u): it is the last pass.
constexpr double kRefineThreshold = 0.5;
// Well-conditioned blocks take 2 passes, ill-conditioned ones 3; numerically rank-deficient ones a few more
// while shifted passes blow the leftover direction up to unit size. More than this means non-finite data.
constexpr int kMaxPasses = 8;

// G = R^T R with R upper triangular; false if G is not numerically positive definite.
bool cholesky_upper(const Eigen::MatrixXd& g, Eigen::MatrixXd& r) {
  Eigen::LLT<Eigen::MatrixXd> llt(g);
  if (llt.info() != Eigen::Success) return false;
  r = llt.matrixU();
  for (Eigen::Index j = 0; j < r.cols(); ++j)
    if (!(r(j, j) > 0.0) || !std::isfinite(r(j, j))) return false;
  return true;
}

std::string shape(const RowBlockReducer& sums, Eigen::Index b) {
  return std::to_string(sums.n_global()) + " x " + std::to_string(b);
}
}  // namespace

void solve_upper_right(Eigen::MatrixXd& x, const Eigen::MatrixXd& r) {
  const Eigen::Index n = x.rows(), b = x.cols();
  if (r.rows() != b || r.cols() != b) throw Error("solve_upper_right: R must be " + std::to_string(b) + " x " + std::to_string(b));
  constexpr Eigen::Index kChunk = 128;  // rows per chunk: the chunk's b columns stay in cache
  double* data = x.data();
  for (Eigen::Index i0 = 0; i0 < n; i0 += kChunk) {
    const Eigen::Index len = std::min(kChunk, n - i0);
    for (Eigen::Index j = 0; j < b; ++j) {
      double* __restrict xj = data + j * n + i0;
      for (Eigen::Index k = 0; k < j; ++k) {
        const double rkj = r(k, j);
        const double* __restrict xk = data + k * n + i0;
        for (Eigen::Index i = 0; i < len; ++i) xj[i] -= rkj * xk[i];
      }
      const double d = r(j, j);
      for (Eigen::Index i = 0; i < len; ++i) xj[i] /= d;
    }
  }
}

TallSkinnyQr tall_skinny_qr(const RowBlockReducer& sums, Eigen::MatrixXd x) {
  const Eigen::Index b = x.cols();
  if (x.rows() != sums.n_local())
    throw Error("tall_skinny_qr: the block has " + std::to_string(x.rows()) + " rows, expected n_local = " +
                std::to_string(sums.n_local()));
  if (b > sums.n_global())
    throw RankDeficientError("tall_skinny_qr: a " + shape(sums, b) + " block cannot have orthonormal columns");
  TallSkinnyQr out;
  if (b == 0) {
    out.q_local = std::move(x);
    out.r = Eigen::MatrixXd(0, 0);
    return out;
  }

  // Passes until one starts from a Gram matrix within kRefineThreshold of I: that pass is accurate to O(u)
  // and is the last. A pass whose Gram matrix is not numerically positive definite is shifted.
  Eigen::MatrixXd r = Eigen::MatrixXd::Identity(b, b);
  for (;;) {
    Eigen::MatrixXd g = sums.gram(x);
    if (out.passes == 0)
      for (Eigen::Index j = 0; j < b; ++j)
        if (!(g(j, j) > 0.0) || !std::isfinite(g(j, j)))
          throw RankDeficientError("tall_skinny_qr: column " + std::to_string(j) + " of the " + shape(sums, b) +
                                   " block is zero or not finite");
    const double off = (g - Eigen::MatrixXd::Identity(b, b)).norm();
    Eigen::MatrixXd rk;
    bool shifted = false;
    if (!cholesky_upper(g, rk)) {
      const double u = std::numeric_limits<double>::epsilon() / 2;
      const double n = static_cast<double>(sums.n_global()), bd = static_cast<double>(b);
      g.diagonal().array() += 11.0 * (n * bd + bd * (bd + 1.0)) * u * g.trace();
      if (!cholesky_upper(g, rk))
        throw RankDeficientError("tall_skinny_qr: Cholesky of the Gram matrix of the " + shape(sums, b) +
                                 " block failed even with a shift (pass " + std::to_string(out.passes + 1) + ")");
      shifted = out.shifted = true;
    }
    solve_upper_right(x, rk);
    r = (rk * r).eval();
    ++out.passes;
    if (off <= kRefineThreshold && !shifted) break;
    if (out.passes == kMaxPasses)
      throw RankDeficientError("tall_skinny_qr: the " + shape(sums, b) + " block did not reach orthonormal columns in " +
                               std::to_string(kMaxPasses) + " CholeskyQR passes");
  }
  r.triangularView<Eigen::StrictlyLower>().setZero();
  out.q_local = std::move(x);
  out.r = std::move(r);
  return out;
}

}  // namespace graphrf
