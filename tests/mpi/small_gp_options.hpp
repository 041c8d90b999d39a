#pragma once
// A GP run small enough for MPI tests at 1-4 ranks: synthetic data (share 0.8, theta 1, 1, 0.1), 8 short walks per
// node, two learning steps and four posterior samples, every stream on seed 3.
#include "graphrf/gp/gp_run.hpp"

namespace graphrf::testing {

inline GpRunOptions small_gp_options(double test_fraction) {
  GpRunOptions o;
  o.walk.walkers = 8;
  o.walk.p_halt = 0.4;
  o.walk.max_length = 10;
  o.walk.seed = 3;
  o.synthetic = {0.8, 1.0, 1.0, 0.1};
  o.split.test_fraction = test_fraction;
  o.schedule.iterations = 2;
  o.prediction.samples = 4;
  o.lml.seed = o.prediction.seed = o.walk.seed;
  return o;
}

}  // namespace graphrf::testing
