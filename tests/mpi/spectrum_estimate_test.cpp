// Eigencount, spectral moments, lambda_K dichotomy and Lanczos lambda_max give the same bits at every rank count and layout.
#include "graphrf/spectral/spectrum_estimate.hpp"

#include <gtest/gtest.h>

#include "graphrf/spectral/spectral_moments.hpp"
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

TEST(SpectrumEstimateMpi, MomentsAndTheLambdaKWindowHaveTheSameBitsEverywhere) {
  Communicator self(MPI_COMM_SELF);
  const Eigen::MatrixXd l = normalised_laplacian(ring_of_cliques(7, 9));
  const auto serial = serial_operator(self, l);
  const RowBlockReducer serial_sums(serial);
  const auto moments = chebyshev_moments(serial, serial_sums, 2.0, eigencount_probes(serial, 6, 3), 30);
  LambdaKOptions lk;
  lk.seed = 4;
  const auto ref = estimate_lambda_k(serial, serial_sums, 2.0, 7, lk);
  ASSERT_LT(ref.window_lower, ref.window_upper);  // a count was accepted: the window is compared too
  for_each_prefix_communicator([&](const Communicator& comm) {
    for (auto kind : {Layout::even, Layout::uneven, Layout::empty_rank, Layout::permuted}) {
      const auto op = layout_operator(comm, l, kind);
      const RowBlockReducer sums(op);
      EXPECT_EQ(chebyshev_moments(op, sums, 2.0, eigencount_probes(op, 6, 3), 30), moments) << comm.size() << " " << int(kind);
      const auto est = estimate_lambda_k(op, sums, 2.0, 7, lk);
      EXPECT_EQ(est.window_lower, ref.window_lower) << comm.size() << " " << int(kind);
      EXPECT_EQ(est.window_upper, ref.window_upper) << comm.size() << " " << int(kind);
      EXPECT_EQ(est.lambda_k, ref.lambda_k) << comm.size() << " " << int(kind);
      EXPECT_EQ(est.refinement_steps, ref.refinement_steps);
    }
  });
}
