// CholeskyQR2 (and its shifted variant) on one rank: orthonormal Q, Q R = X, R upper triangular with a
// positive diagonal; rank-deficient blocks are refused.
#include "graphrf/spectral/tall_skinny_qr.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

#include "wavelet_test_graphs.hpp"

using namespace graphrf;
using graphrf::testing::iota_keys;
using graphrf::testing::keyed_test_block;

namespace {

// X = U diag(sigma) V^T with orthonormal U (n x b), V (b x b) and singular values from 1 down to 1/cond.
Eigen::MatrixXd with_condition_number(const std::vector<std::int64_t>& keys, Eigen::Index b, double cond) {
  Eigen::HouseholderQR<Eigen::MatrixXd> qu(keyed_test_block(keys, b, 31));
  const Eigen::MatrixXd u = qu.householderQ() * Eigen::MatrixXd::Identity(static_cast<Eigen::Index>(keys.size()), b);
  Eigen::HouseholderQR<Eigen::MatrixXd> qv(keyed_test_block(iota_keys(b), b, 32));
  const Eigen::MatrixXd v = qv.householderQ();
  Eigen::VectorXd sigma(b);
  for (Eigen::Index j = 0; j < b; ++j) sigma(j) = std::pow(cond, -static_cast<double>(j) / static_cast<double>(b - 1));
  return u * sigma.asDiagonal() * v.transpose();
}

void expect_qr(const TallSkinnyQr& qr, const Eigen::MatrixXd& x) {
  const auto b = x.cols();
  EXPECT_LE((qr.q_local.transpose() * qr.q_local - Eigen::MatrixXd::Identity(b, b)).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LE((qr.q_local * qr.r - x).norm() / x.norm(), 1e-12);
  for (Eigen::Index j = 0; j < b; ++j) {
    EXPECT_GT(qr.r(j, j), 0.0);
    for (Eigen::Index i = j + 1; i < b; ++i) EXPECT_EQ(qr.r(i, j), 0.0);
  }
}
}  // namespace

TEST(TallSkinnyQr, WellConditionedBlockTakesTwoPasses) {
  Communicator self(MPI_COMM_SELF);
  const auto keys = iota_keys(700);
  RowBlockReducer sums(self, 700, keys);
  const Eigen::MatrixXd x = keyed_test_block(keys, 20, 30);
  const auto qr = tall_skinny_qr(sums, x);
  expect_qr(qr, x);
  EXPECT_EQ(qr.passes, 2);
  EXPECT_FALSE(qr.shifted);
}

TEST(TallSkinnyQr, IllConditionedBlocks) {
  // cond 1e6: within CholeskyQR2's range (u^{-1/2} ~ 1e8). cond 1e12: Gram has cond ~1e24 and is not
  // numerically positive definite: the shifted first pass (shifted CholeskyQR3) handles it.
  Communicator self(MPI_COMM_SELF);
  const auto keys = iota_keys(600);
  RowBlockReducer sums(self, 600, keys);
  for (double cond : {1e6, 1e12}) {
    const Eigen::MatrixXd x = with_condition_number(keys, 12, cond);
    const auto qr = tall_skinny_qr(sums, x);
    expect_qr(qr, x);
    if (cond > 1e8) {
      EXPECT_EQ(qr.passes, 3) << cond;
    }
  }
}

TEST(TallSkinnyQr, RankDeficientBlocksStillGetAnOrthonormalQ) {
  // A repeated column: like Householder QR, Q is orthonormal, Q R = X, and R has a negligible diagonal entry.
  Communicator self(MPI_COMM_SELF);
  const auto keys = iota_keys(300);
  RowBlockReducer sums(self, 300, keys);
  Eigen::MatrixXd x = keyed_test_block(keys, 6, 33);
  x.col(4) = x.col(1);
  const auto qr = tall_skinny_qr(sums, x);
  expect_qr(qr, x);
  EXPECT_LT(qr.r(4, 4), 1e-12 * qr.r(0, 0));
  EXPECT_TRUE(qr.shifted);
}

TEST(TallSkinnyQr, RefusesZeroColumnsAndWideBlocks) {
  Communicator self(MPI_COMM_SELF);
  const auto keys = iota_keys(300);
  RowBlockReducer sums(self, 300, keys);
  Eigen::MatrixXd x = keyed_test_block(keys, 6, 33);
  x.col(4).setZero();
  EXPECT_THROW(tall_skinny_qr(sums, x), RankDeficientError);
  EXPECT_THROW(tall_skinny_qr(sums, keyed_test_block(keys, 301, 34)), RankDeficientError);  // more columns than rows
}

TEST(TallSkinnyQr, OrthonormalInputTakesOnePass) {
  Communicator self(MPI_COMM_SELF);
  const auto keys = iota_keys(400);
  RowBlockReducer sums(self, 400, keys);
  const auto first = tall_skinny_qr(sums, keyed_test_block(keys, 10, 37));
  const auto again = tall_skinny_qr(sums, first.q_local);
  EXPECT_EQ(again.passes, 1);
  expect_qr(again, first.q_local);
}

TEST(TallSkinnyQr, RowSolveIsRowwise) {
  // Row i of X R^{-1} depends only on row i: solving a sub-block of rows gives the same bits.
  const auto keys = iota_keys(50);
  const Eigen::MatrixXd x = keyed_test_block(keys, 7, 35);
  Eigen::MatrixXd r = keyed_test_block(iota_keys(7), 7, 36).triangularView<Eigen::Upper>();
  r.diagonal().array() += 3.0;
  Eigen::MatrixXd all = x, part = x.middleRows(13, 9);
  solve_upper_right(all, r);
  solve_upper_right(part, r);
  EXPECT_EQ(Eigen::MatrixXd(all.middleRows(13, 9)), part);
  EXPECT_LE((all * r - x).cwiseAbs().maxCoeff(), 1e-13);
}
