// Distributed CholeskyQR2: Q and R have the same bits at every rank count and layout.
#include "graphrf/spectral/tall_skinny_qr.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "wavelet_test_graphs.hpp"

using namespace graphrf;
using namespace graphrf::testing;

TEST(TallSkinnyQrMpi, SameBitsAtEveryRankCountAndLayout) {
  Communicator self(MPI_COMM_SELF);
  const std::int64_t n = 900;
  std::vector<std::int64_t> all(static_cast<size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) all[i] = i;
  Eigen::MatrixXd x_all = keyed_test_block(all, 16, 41);
  x_all.col(15) = x_all.col(3) + 1e-9 * x_all.col(15);  // cond ~1e9: exercises the shifted pass too
  for (bool hard : {false, true}) {
    const Eigen::MatrixXd input = hard ? x_all : Eigen::MatrixXd(x_all.leftCols(15));
    const auto ref = tall_skinny_qr(RowBlockReducer(self, n, all), input);
    for_each_prefix_communicator([&](const Communicator& comm) {
      for (auto kind : {Layout::even, Layout::uneven, Layout::empty_rank, Layout::permuted}) {
        const auto keys = layout_keys(kind, comm.size(), n)[comm.rank()];
        Eigen::MatrixXd local = keyed_test_block(keys, 16, 41);
        if (hard) local.col(15) = local.col(3) + 1e-9 * local.col(15);
        else local.conservativeResize(Eigen::NoChange, 15);
        const auto qr = tall_skinny_qr(RowBlockReducer(comm, n, keys), local);
        EXPECT_EQ(qr.r, ref.r) << comm.size() << " " << int(kind);
        EXPECT_EQ(qr.passes, ref.passes);
        EXPECT_EQ(max_row_difference(qr.q_local, keys, ref.q_local), 0.0) << comm.size() << " " << int(kind);
      }
    });
  }
}
