// RowBlockReducer on one rank: the sums are the plain X^T Y, X^T X and ||X||_F^2 (to rounding), the Gram
// matrix is exactly symmetric, and bad keys are refused.
#include "graphrf/mpi/reproducible_sum.hpp"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "wavelet_test_graphs.hpp"


using namespace graphrf;
using graphrf::testing::iota_keys;
using graphrf::testing::keyed_test_block;

TEST(RowBlockReducer, MatchesPlainSumsOnOneRank) {
  Communicator self(MPI_COMM_SELF);
  for (std::int64_t n : {1, 7, 256, 257, 1000}) {
    const auto keys = iota_keys(n);
    RowBlockReducer sums(self, n, keys);
    const Eigen::MatrixXd x = keyed_test_block(keys, 5, 1);
    const Eigen::MatrixXd y = keyed_test_block(keys, 3, 2);
    const Eigen::MatrixXd xty = x.transpose() * y;
    EXPECT_LE((sums.cross(x, y) - xty).cwiseAbs().maxCoeff(), 1e-12 * n) << n;
    const Eigen::MatrixXd g = sums.gram(x);
    EXPECT_LE((g - x.transpose() * x).cwiseAbs().maxCoeff(), 1e-12 * n) << n;
    EXPECT_EQ(g, g.transpose());
    EXPECT_NEAR(sums.squared_norm(x), x.squaredNorm(), 1e-12 * n) << n;
  }
}

TEST(RowBlockReducer, KeyOrderNotStorageOrderDecidesTheBits) {
  // The same rows stored in a different local order give the same bits.
  Communicator self(MPI_COMM_SELF);
  const std::int64_t n = 700;
  auto keys = iota_keys(n);
  const Eigen::MatrixXd x = keyed_test_block(keys, 4, 3);
  std::vector<std::int64_t> rev(keys.rbegin(), keys.rend());
  const Eigen::MatrixXd xr = x.colwise().reverse();
  RowBlockReducer a(self, n, keys), b(self, n, rev);
  EXPECT_EQ(a.gram(x), b.gram(xr));
  EXPECT_EQ(a.squared_norm(x), b.squared_norm(xr));
}

TEST(RowBlockReducer, RefusesKeysThatAreNotAPermutation) {
  Communicator self(MPI_COMM_SELF);
  std::vector<std::int64_t> dup = {0, 1, 1, 3};
  EXPECT_THROW(RowBlockReducer(self, 4, dup), Error);
  std::vector<std::int64_t> out_of_range = {0, 1, 2, 4};
  EXPECT_THROW(RowBlockReducer(self, 4, out_of_range), Error);
  std::vector<std::int64_t> short_keys = {0, 1, 2};
  EXPECT_THROW(RowBlockReducer(self, 4, short_keys), Error);
}
