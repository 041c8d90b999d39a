// Eigencount, lambda_K dichotomy and Lanczos lambda_max give the same bits at every rank count and layout.
#include "graphrf/spectral/spectrum_estimate.hpp"

#include <gtest/gtest.h>

#include "wavelet_test_graphs.hpp"

using namespace graphrf;
using namespace graphrf::testing;

TEST(SpectrumEstimateMpi, SameBitsAtEveryRankCountAndLayout) {
  Communicator self(MPI_COMM_SELF);
  const Eigen::MatrixXd l = normalised_laplacian(grid_2d(18, 17));
  const auto serial = serial_operator(self, l);
  const RowBlockReducer serial_sums(serial);
  const double count = eigencount(serial, serial_sums, 2.0, 0.3, eigencount_probes(serial, 12, 5), 50);
  LambdaKOptions lk;
  lk.seed = 9;
  const auto lambda_k = estimate_lambda_k(serial, serial_sums, 2.0, 25, lk);
  const Eigen::MatrixXd l3 = 3.0 * l;
  const auto serial3 = serial_operator(self, l3);
  const double lambda_max = estimate_lambda_max(serial3, RowBlockReducer(serial3));
  for_each_prefix_communicator([&](const Communicator& comm) {
    for (auto kind : {Layout::even, Layout::uneven, Layout::empty_rank, Layout::permuted}) {
      const auto op = layout_operator(comm, l, kind);
      const RowBlockReducer sums(op);
      EXPECT_EQ(eigencount(op, sums, 2.0, 0.3, eigencount_probes(op, 12, 5), 50), count) << comm.size() << " " << int(kind);
      const auto est = estimate_lambda_k(op, sums, 2.0, 25, lk);
      EXPECT_EQ(est.lambda_k, lambda_k.lambda_k) << comm.size() << " " << int(kind);
      EXPECT_EQ(est.iterations, lambda_k.iterations);
      const auto op3 = layout_operator(comm, l3, kind);
      EXPECT_EQ(estimate_lambda_max(op3, RowBlockReducer(op3)), lambda_max) << comm.size() << " " << int(kind);
    }
  });
}
