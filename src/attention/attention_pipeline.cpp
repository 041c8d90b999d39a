#include "graphrf/attention/attention_pipeline.hpp"

#include <optional>

#include "graphrf/grf/grf_memory.hpp"
#include "graphrf/grf/spectral_radius.hpp"
#include "graphrf/attention/importance_sampling.hpp"
#include "graphrf/attention/whitening.hpp"

namespace graphrf {

namespace {

// The features of one head. Favor/dark keys subtract one shift shared by all ranks (the largest logit
// anywhere), which cancels in the normalisation.
void compute_features(const DistributedGraph& g, const QkvRows& qkv, int head, const AttentionConfig& config,
                      HeadResult& r) {
  const Communicator& comm = *g.comm;
  FeatureOptions options = config.features;
  options.seed = config.features.seed + static_cast<std::uint64_t>(head);  // each head its own draws
  const Eigen::MatrixXd q = qkv.q[static_cast<size_t>(head)], k = qkv.k[static_cast<size_t>(head)];
  Eigen::MatrixXd dark_m;
  if (options.kind == FeatureKind::dark && config.dark_m.size() > 0)
    dark_m = config.dark_m;
  else if (options.kind == FeatureKind::dark)
    dark_m = whitening_matrix(comm, q, k, qkv.d, feature_input_scale(options, qkv.d, FeatureRole::key), config.dark_ridge);
  std::optional<ImportanceProposal> proposal;  // favor --draw importance: Sigma* from this head's queries and keys
  if (options.kind == FeatureKind::favor && options.draw == FrequencyDraw::importance) {
    const Eigen::MatrixXd lambda = reproducible_pooled_covariance(comm, g.n_global(), g.canonical_index, q, k, qkv.d,
                                                                  feature_input_scale(options, qkv.d, FeatureRole::key));
    collective_try(comm, [&] { proposal.emplace(importance_proposal(lambda)); });
    r.importance_sigma = proposal->sigma;
  }
  std::optional<FeatureMap> map;  // option errors (e.g. --num-features for relu) are the same on every rank
  collective_try(comm, [&] {
    map.emplace(options, qkv.d, options.kind == FeatureKind::dark ? &dark_m : nullptr, proposal ? &*proposal : nullptr);
  });
  r.feature_kernel = feature_kernel(*map);
  const double key_shift = comm.max(k.rows() > 0 ? map->key_max_logit(k) : -INFINITY);
  r.phi_q = map->apply(q, FeatureRole::query);
  r.phi_k = map->apply(k, FeatureRole::key, std::isfinite(key_shift) ? key_shift : 0.0);
}

}  // namespace

NormalizerPolicy resolve_normalizer_policy(const std::string& normalizer, double eps, std::span<const double> f,
                                           FeatureKind features) {
  NormalizerPolicy p;
  p.eps = eps;
  if (normalizer != "auto") p.action = parse_bad_normalizer(normalizer);
  else p.action = has_negative(f) || can_be_negative(features) ? BadNormalizer::error : BadNormalizer::clamp;
  return p;
}

std::vector<HeadResult> run_attention(const DistributedGraph& g, const QkvRows& qkv, const AttentionConfig& config,
                                      const Log& log, const WalkLimits& limits) {
  const Communicator& comm = *g.comm;
  std::vector<HeadResult> heads(static_cast<size_t>(qkv.heads));
  collective_try(comm, [&] {
    if (!config.head_betas.empty() && static_cast<int>(config.head_betas.size()) != qkv.heads)
      throw InputError("attention.head_betas: " + std::to_string(config.head_betas.size()) + " values for " +
                       std::to_string(qkv.heads) + " heads");
  });
  // Heads sharing walks validate their kernels against one spectral radius (compute_grf finds its own).
  const double rho = config.shared_walks ? spectral_radius(g, config.walk) : 1.0;
  // Heads walking their own ensembles share one arc table (the engine's, built once per graph).
  std::optional<WalkArcs> arcs;
  if (!config.shared_walks && qkv.heads > 1) arcs.emplace(g, config.walk);
  for (int h = 0; h < qkv.heads; ++h) {
    HeadResult& r = heads[static_cast<size_t>(h)];
    r.kernel = config.kernel;
    if (!config.head_betas.empty()) r.kernel.beta = config.head_betas[static_cast<size_t>(h)];
    if (config.shared_walks && h > 0) {
      // Same walks as head 0: rebuild Phi from its length-resolved rows with this head's f.
      const GrfRun& base = heads[0].grf;
      r.grf.estimator = base.estimator;
      r.grf.walks = base.walks;
      r.grf.by_length = base.by_length;
      collective_try(comm, [&] {
        validate(r.kernel, rho);
        const int terms = static_cast<int>(config.walk.max_length) + 1;
        r.grf.alpha = kernel_alpha(r.kernel, terms);
        r.grf.f = config.estimator == GrfEstimator::asymmetric ? r.grf.alpha : kernel_f(r.kernel, terms);
      });
      for (const auto& m : r.grf.by_length) r.grf.phi.push_back(combine_lengths(m, r.grf.f));
    } else {
      WalkOptions walk = config.walk;
      walk.ensemble = 2 * static_cast<std::uint64_t>(h);  // a walk ensemble per head (two with two-ensembles)
      const bool keep = config.keep_length_resolved || (config.shared_walks && qkv.heads > 1);
      r.grf = compute_grf(g, r.kernel, walk, config.estimator, log, limits,
                          keep ? LengthResolvedRows::keep : LengthResolvedRows::drop, arcs ? &*arcs : nullptr);
    }
    compute_features(g, qkv, h, config, r);
    r.policy = resolve_normalizer_policy(config.normalizer, config.normalizer_eps, r.grf.f, config.features.kind);
    const RowMatrix& v = qkv.v[static_cast<size_t>(h)];
    if (config.estimator == GrfEstimator::asymmetric)
      r.output = asymmetric_masked_attention(g, r.grf.phi[0], r.phi_q, r.phi_k, v, r.policy, r.stats);
    else
      r.output = grf_masked_attention(g, r.grf.phi[0], r.grf.phi.back(), r.phi_q, r.phi_k, v, r.policy, r.stats);
    NormalizerPolicy lenient = r.policy;
    lenient.action = BadNormalizer::skip;  // the baseline must not stop the run
    r.linear = linear_attention(g, r.phi_q, r.phi_k, v, lenient, r.linear_stats);
  }
  return heads;
}

}  // namespace graphrf
