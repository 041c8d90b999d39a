#include "graphrf/gp/target_scaling.hpp"

#include <cmath>

namespace graphrf {

TargetScaling standardise_targets(const RowBlockReducer& reducer, const Eigen::VectorXd& y, const Eigen::VectorXd& train) {
  const Eigen::Index n_local = y.size();
  Eigen::MatrixXd terms = Eigen::MatrixXd::Zero(n_local, 2);  // count, y
  for (Eigen::Index i = 0; i < n_local; ++i)
    if (train(i) != 0) terms(i, 0) = 1, terms(i, 1) = y(i);
  const std::vector<double> sums = reducer.column_sums(terms);
  TargetScaling s;
  if (sums[0] == 0) return s;
  s.mean = sums[1] / sums[0];
  // Two passes (the squares of the deviations, not of y): no cancellation for targets far from zero.
  Eigen::MatrixXd squares = Eigen::MatrixXd::Zero(n_local, 1);
  for (Eigen::Index i = 0; i < n_local; ++i)
    if (train(i) != 0) squares(i, 0) = (y(i) - s.mean) * (y(i) - s.mean);
  const double sd = std::sqrt(reducer.column_sums(squares)[0] / sums[0]);
  s.scale = sd > 0 ? sd : 1.0;
  return s;
}

}  // namespace graphrf
