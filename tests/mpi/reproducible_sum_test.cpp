// RowBlockReducer across rank counts and layouts: the sums have the same bits as on one rank, including
// layouts with an empty rank and rows permuted across ranks. Every rank count from 1 to P is run from one
// launch at P ranks (prefix sub-communicators).
#include "graphrf/mpi/reproducible_sum.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "wavelet_test_graphs.hpp"

using namespace graphrf;
using namespace graphrf::testing;

TEST(RowBlockReducerMpi, SameBitsAtEveryRankCountAndLayout) {
  Communicator self(MPI_COMM_SELF);
  for (std::int64_t n : {5, 300, 1100}) {
    std::vector<std::int64_t> all(static_cast<size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) all[i] = i;
    const Eigen::MatrixXd x_all = keyed_test_block(all, 6, 11);
    const Eigen::MatrixXd y_all = keyed_test_block(all, 2, 12);
    RowBlockReducer serial(self, n, all);
    const Eigen::MatrixXd gram = serial.gram(x_all), cross = serial.cross(x_all, y_all);
    const double norm = serial.squared_norm(x_all);
    for_each_prefix_communicator([&](const Communicator& comm) {
      for (auto kind : {Layout::even, Layout::uneven, Layout::empty_rank, Layout::permuted}) {
        const auto keys = layout_keys(kind, comm.size(), n)[comm.rank()];
        const Eigen::MatrixXd x = keyed_test_block(keys, 6, 11), y = keyed_test_block(keys, 2, 12);
        RowBlockReducer sums(comm, n, keys);
        EXPECT_EQ(sums.gram(x), gram) << "n " << n << " ranks " << comm.size() << " layout " << int(kind);
        EXPECT_EQ(sums.cross(x, y), cross) << "n " << n << " ranks " << comm.size() << " layout " << int(kind);
        EXPECT_EQ(sums.squared_norm(x), norm) << "n " << n << " ranks " << comm.size() << " layout " << int(kind);
      }
    });
  }
}

TEST(RowBlockReducerMpi, EveryRankRefusesDuplicateKeys) {
  // Rank 0 and the last rank both claim key 0 (at one rank: key 0 twice). Every rank must throw, none hang.
  Communicator world(MPI_COMM_WORLD);
  const std::int64_t n = 40;
  auto keys = layout_keys(Layout::even, world.size(), n)[world.rank()];
  if (world.rank() == world.size() - 1 && !keys.empty()) keys.back() = 0;
  if (world.size() == 1) keys[1] = 0;
  EXPECT_THROW(RowBlockReducer(world, n, keys), Error);
}
