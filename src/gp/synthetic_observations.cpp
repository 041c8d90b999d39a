#include "graphrf/gp/synthetic_observations.hpp"

#include <limits>

#include "graphrf/core/counter_rng.hpp"
#include "graphrf/gp/gp_parameters.hpp"

namespace graphrf {

LocalObservations synthetic_observations(GrfFeatureOperator& phi, const KernelSpec& kernel, const SyntheticGp& truth,
                                         const SplitSpec& split, std::uint64_t seed) {
  KernelSpec true_kernel = kernel;
  true_kernel.beta = truth.beta;
  const GpParameters true_parameters(true_kernel, GpLearn::hyper, phi.n_lengths(), truth.sigma_f, truth.sigma_n);
  phi.set_f(true_parameters.f(true_parameters.initial()));

  // One GRF-GP sample Phi eps + noise observed at a keyed share of the nodes (every node owner draws its own).
  const DistributedGraph& g = phi.graph();
  Eigen::MatrixXd eps(g.n_local(), 1);
  LocalObservations out;
  out.y = Eigen::VectorXd::Constant(g.n_local(), std::numeric_limits<double>::quiet_NaN());
  out.role.assign(static_cast<size_t>(g.n_local()), static_cast<std::int32_t>(NodeRole::unobserved));
  for (std::int64_t i = 0; i < g.n_local(); ++i) {
    const auto w = philox_block(seed, RngDomain::gp_synthetic, static_cast<std::uint64_t>(g.canonical_index[static_cast<size_t>(i)]));
    eps(i, 0) = standard_normal_pair(w[0], w[1]).first;
  }
  const Eigen::MatrixXd sample = phi.times(eps);
  for (std::int64_t i = 0; i < g.n_local(); ++i) {
    const auto id = static_cast<std::uint64_t>(g.original_id[static_cast<size_t>(i)]);
    const auto w = philox_block(seed, RngDomain::gp_synthetic, id, 1);
    if (unit_uniform(w[0]) >= truth.share) continue;
    out.y(i) = sample(i, 0) + truth.sigma_n * standard_normal_pair(w[1], w[2]).first;
    const bool test = unit_uniform(philox_block(split.split_seed, RngDomain::gp_split, id)[0]) < split.test_fraction;
    out.role[static_cast<size_t>(i)] = static_cast<std::int32_t>(test ? NodeRole::test : NodeRole::train);
  }
  for (auto r : out.role) {
    out.n_train += r == static_cast<std::int32_t>(NodeRole::train);
    out.n_test += r == static_cast<std::int32_t>(NodeRole::test);
  }
  out.n_train = g.comm->sum(out.n_train);
  out.n_test = g.comm->sum(out.n_test);
  return out;
}

}  // namespace graphrf
