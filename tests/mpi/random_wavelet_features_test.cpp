// Random wavelet features give the same embedding bits at every rank count and layout.
//
// Reference: every rank computes the 1-rank result itself on MPI_COMM_SELF with the whole matrix (cheap at
// this size, and it needs no broadcast that could itself hide a difference). Then each prefix communicator
// of 1..P ranks runs the distributed computation under four layouts (even, uneven, an empty rank, rows
// permuted across ranks) and every rank compares its rows with the reference rows of the same nodes.
#include "graphrf/spectral/random_wavelet_features.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "wavelet_test_graphs.hpp"

using namespace graphrf;
using namespace graphrf::testing;

TEST(RandomWaveletFeaturesMpi, SameEmbeddingAtEveryRankCountAndLayout) {
  Communicator self(MPI_COMM_SELF);
  auto h = [](double x) { return std::exp(-4.0 * x); };
  struct Case {
    Eigen::MatrixXd l;
    std::int64_t k;
  };
  const std::vector<Case> cases = {{normalised_laplacian(ring_of_cliques(12, 25)), 12},
                                   {normalised_laplacian(grid_2d(18, 17)), 20}};
  for (const auto& [l, k] : cases) {
    WaveletOptions o;
    o.rank = k;
    o.seed = 2024;
    const auto ref = random_wavelet_features(serial_operator(self, l), h, o);
    ASSERT_EQ(ref.subspace_iterations, 2);  // the QR's output is filtered again: both passes are compared
    for_each_prefix_communicator([&](const Communicator& comm) {
      for (auto kind : {Layout::even, Layout::uneven, Layout::empty_rank, Layout::permuted}) {
        const auto op = layout_operator(comm, l, kind);
        const auto res = random_wavelet_features(op, h, o);
        EXPECT_EQ(res.lambda_k, ref.lambda_k) << comm.size() << " " << int(kind);
        EXPECT_EQ(res.coeff_chi, ref.coeff_chi);
        EXPECT_EQ(res.qr_passes, ref.qr_passes);
        EXPECT_EQ(res.subspace_iterations, ref.subspace_iterations);
        const double diff = max_row_difference(res.embedding_local, op.row_keys, ref.embedding_local);
        EXPECT_LE(diff, 1e-12) << comm.size() << " " << int(kind);  // the requirement
        EXPECT_EQ(diff, 0.0) << comm.size() << " " << int(kind);    // what the design gives: the same bits
      }
    });
  }
}

TEST(RandomWaveletFeaturesMpi, BadInputIsACollectiveInputErrorOnEveryRank) {
  Communicator world(MPI_COMM_WORLD);
  const auto op = layout_operator(world, normalised_laplacian(grid_2d(6, 6)), Layout::uneven);
  WaveletOptions o;
  o.rank = 30;  // 30 + 15 >= 36
  bool collective = false;
  try {
    random_wavelet_features(op, [](double x) { return std::exp(-x); }, o);
  } catch (const InputError& e) {
    collective = e.collective();
  }
  EXPECT_TRUE(collective);
  o.rank = 4;
  collective = false;
  try {
    random_wavelet_features(op, [](double x) { return 1.0 - x; }, o);  // h(2) = -1
  } catch (const InputError& e) {
    collective = e.collective();
  }
  EXPECT_TRUE(collective);
}
