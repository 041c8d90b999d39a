// Distributed Chebyshev filtering gives the same bits as on one rank, for every layout.
#include "graphrf/spectral/chebyshev.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "wavelet_test_graphs.hpp"

using namespace graphrf;
using namespace graphrf::testing;

TEST(ChebyshevFilterMpi, SameBitsAtEveryRankCountAndLayout) {
  Communicator self(MPI_COMM_SELF);
  const Eigen::MatrixXd l = normalised_laplacian(grid_2d(15, 20));
  const auto serial = serial_operator(self, l);
  const auto c1 = chebyshev_coefficients([](double t) { return std::exp(-3.0 * t); }, 40, 2.0);
  const auto c2 = jackson_chebyshev_coefficients(0.0, 0.4, 60, 2.0);
  const auto ref = chebyshev_filter(serial, 2.0, {c1, c2}, keyed_test_block(serial.row_keys, 5, 21));
  for_each_prefix_communicator([&](const Communicator& comm) {
    for (auto kind : {Layout::even, Layout::uneven, Layout::empty_rank, Layout::permuted}) {
      const auto op = layout_operator(comm, l, kind);
      const auto out = chebyshev_filter(op, 2.0, {c1, c2}, keyed_test_block(op.row_keys, 5, 21));
      EXPECT_EQ(max_row_difference(out[0], op.row_keys, ref[0]), 0.0) << comm.size() << " " << int(kind);
      EXPECT_EQ(max_row_difference(out[1], op.row_keys, ref[1]), 0.0) << comm.size() << " " << int(kind);
    }
  });
}
