#pragma once
// Learning the permutation of a sigma-coupling (Reid et al. 2025b, "Variance-reducing couplings for random
// features", Sec. 4.1 and App. C.3 for kernels, App. E for PageRank) by optimal transport:
//  1. For each of m length quantiles q, simulate S walks from every sampled start node i with lengths drawn
//     from quantile q of Geometric(p), giving the quantile-averaged features Psi_i(q) (GRF rows with n = S)
//     or, for PageRank, the end-point distributions P_i(q).
//  2. Cost of matching quantile q with r:
//       kernel:   C_qr = mean over sampled pairs i != j of [(Psi_i(q) + Psi_i(r))^T (Psi_j(q) + Psi_j(r))]^2
//                 (the diagonal-quantile approximation, Eq. 48; i = j is left out because the same walks
//                 would appear on both sides);
//       PageRank: C_qr = mean over sampled i of sum_j P_ij(q) P_ij(r).
//  3. sigma = argmin_sigma sum_q C_{q, sigma(q)}, an exact linear assignment.
// The sample: nodes whose canonical index is a multiple of start_every, on every rank.
#include <cstdint>
#include <vector>

#include "graphrf/graph/distributed_graph.hpp"
#include "graphrf/grf/kernel.hpp"
#include "graphrf/mpi/log.hpp"
#include "graphrf/walks/walk_options.hpp"

namespace graphrf {

enum class SigmaTarget { kernel, pagerank };
SigmaTarget parse_sigma_target(const std::string& name);  // InputError naming --target

struct SigmaLearningOptions {
  SigmaTarget target = SigmaTarget::kernel;
  KernelSpec kernel;           // with target kernel
  WalkOptions walk;            // p_halt, max_length, seed, weights, scale
  int order = 8;               // m
  std::int64_t samples = 64;   // S walks per quantile and start node
  std::int64_t start_every = 1;
};

struct SigmaLearningResult {
  std::vector<double> cost;    // m x m, row-major (on every rank)
  std::vector<int> sigma;      // the optimum, 0-based
  std::vector<int> random;     // a uniformly random permutation drawn from the seed
  double cost_sigma = 0, cost_identity = 0, cost_random = 0;
  double cost_random_mean = 0; // expected cost of a uniformly random permutation: sum C / m
  std::int64_t start_nodes = 0;
  double walk_seconds = 0, cost_seconds = 0, solve_seconds = 0;  // solve: the assignment alone
};

// Collective; every rank returns the same result.
SigmaLearningResult learn_sigma(const DistributedGraph& g, const SigmaLearningOptions& options, const Log& log);

}  // namespace graphrf
