#pragma once
// Standardised GP targets (scikit-learn's normalize_y): the GP is fitted to (y - mean) / scale, with the mean
// and the standard deviation of the training targets, and its predictions are moved back to the user's units.
// The zero-mean prior then fits targets with any offset and scale.
#include <Eigen/Dense>

#include "graphrf/mpi/reproducible_sum.hpp"

namespace graphrf {

struct TargetScaling {
  double mean = 0;   // identity scaling: targets as given
  double scale = 1;

  double to_model(double y) const { return (y - mean) / scale; }
  // A value of the fitted GP (mean or sample) and a variance, in the user's units.
  double to_user(double value) const { return mean + scale * value; }
  double variance_to_user(double variance) const { return scale * scale * variance; }
};

// Collective. The mean and the (population) standard deviation of y over the rows where train is 1, summed in
// the reducer's fixed order, so every rank count gets the same bits; a scale of 0 (one target, or all equal)
// becomes 1, as in scikit-learn.
TargetScaling standardise_targets(const RowBlockReducer& reducer, const Eigen::VectorXd& y, const Eigen::VectorXd& train);

}  // namespace graphrf
