#pragma once
// Synthetic GP data (`graphrf gp --synthetic q`): one sample of the GRF-GP prior with known hyperparameters, plus
// noise, observed at a share q of the nodes and split into training and test nodes. Every draw is keyed by the
// node (its canonical index for the sample, its id for the noise, the observed share and the split), so the data
// do not depend on the ranks.
#include <cstdint>

#include "graphrf/gp/gp_observations.hpp"
#include "graphrf/gp/grf_feature_operator.hpp"
#include "graphrf/grf/kernel.hpp"

namespace graphrf {

// The truth the data are drawn from.
struct SyntheticGp {
  double share = 0;  // q: share of the nodes observed, in (0, 1]
  double sigma_f = 1, beta = 1, sigma_n = 0.1;
};

// Collective. Sets phi's f to sigma_f f^M(beta) of `kernel` with the truth's beta, draws g = Phi eps and observes
// g + N(0, sigma_n^2) at the keyed share of the nodes; each observed node is a test node with the split's
// test_fraction (test_file is not used).
LocalObservations synthetic_observations(GrfFeatureOperator& phi, const KernelSpec& kernel, const SyntheticGp& truth,
                                         const SplitSpec& split, std::uint64_t seed);

}  // namespace graphrf
