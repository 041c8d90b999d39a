#pragma once
// X W^T one entry at a time, summing over the shared dimension in order, so that the bits of row i depend on
// row i alone. A blocked matrix product (Eigen's GEMM/GEMV) rounds differently depending on how many rows a rank
// holds, which would make features and attention outputs depend on the partition.
#include <Eigen/Dense>

namespace graphrf {

template <class X, class W>
Eigen::MatrixXd row_by_row_product(const Eigen::MatrixBase<X>& x, const Eigen::MatrixBase<W>& w) {
  Eigen::MatrixXd out(x.rows(), w.rows());
  for (Eigen::Index i = 0; i < x.rows(); ++i)
    for (Eigen::Index j = 0; j < w.rows(); ++j) {
      double sum = 0.0;
      for (Eigen::Index k = 0; k < x.cols(); ++k) sum += x(i, k) * w(j, k);
      out(i, j) = sum;
    }
  return out;
}

}  // namespace graphrf
