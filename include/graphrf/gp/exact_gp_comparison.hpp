#pragma once
// `graphrf gp --reference` on small graphs: the GRF-GP against the exact-kernel GP, densely on rank 0. The
// exact GP is fitted with the GRF-GP's learned hyperparameters and with its own (learned from the same start
// with the same Adam schedule), and the KL divergence of the GRF posterior from the exact one is taken over the
// test nodes.
#include "graphrf/gp/gp_learning.hpp"
#include "graphrf/gp/gp_observations.hpp"
#include "graphrf/gp/gp_prediction.hpp"
#include "graphrf/gp/gp_reference.hpp"
#include "graphrf/grf/grf_pipeline.hpp"
#include "graphrf/walks/walk_options.hpp"

namespace graphrf {

struct ExactGpComparison {
  double kl = 0;              // KL(GRF posterior || exact posterior) over the test nodes
  GpMetrics same, learned;    // the exact GP's test figures with the GRF-GP's theta and with its own
  DenseLearning exact;        // its own learned theta
};

// Collective; the figures on every rank. obs: the targets the GP is fitted to (model units); phi carries the
// learned f; by_length: the walks' M_t. (start_sigma_f, start_beta, start_sigma_n): where learning started.
ExactGpComparison compare_with_exact_gp(const DistributedGraph& g, const WalkOptions& walk, const KernelSpec& kernel,
                                        const GrfFeatureOperator& phi, const LengthResolvedGrf& by_length,
                                        const LocalObservations& obs, double sigma_f, double beta, double sigma_n,
                                        double start_sigma_f, double start_beta, double start_sigma_n,
                                        const AdamSchedule& schedule);

}  // namespace graphrf
