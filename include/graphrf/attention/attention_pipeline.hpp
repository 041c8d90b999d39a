#pragma once
// GRF-masked attention for every head: walks (one ensemble per head, or one shared by all heads when only f
// differs between them, reusing M_t), feature maps, the distributed masked attention and the unmasked
// linear baseline with the same features.
#include <span>
#include <string>
#include <vector>

#include "graphrf/attention/feature_kernel.hpp"
#include "graphrf/attention/feature_map.hpp"
#include "graphrf/grf/grf_pipeline.hpp"
#include "graphrf/attention/masked_attention.hpp"
#include "graphrf/attention/qkv.hpp"

namespace graphrf {

struct AttentionConfig {
  KernelSpec kernel;
  std::vector<double> head_betas;  // optional: beta of each head (else kernel.beta for all)
  WalkOptions walk;
  GrfEstimator estimator = GrfEstimator::symmetric;
  bool shared_walks = false;       // all heads use one walk ensemble (their kernels differ only in f)
  bool keep_length_resolved = false;  // keep M_t in the heads' GrfRun (`--save-grf --by-length`); otherwise
                                      // only head 0 keeps it, and only when later heads share its walks
  FeatureOptions features;
  double dark_ridge = 0.0;
  Eigen::MatrixXd dark_m;          // dark: M (r x d) of a given Sigma = M^T M (--dark-sigma); empty: whitening
  std::string normalizer = "auto"; // auto | error | clamp | skip
  double normalizer_eps = 1e-12;
};

struct HeadResult {
  KernelSpec kernel;
  GrfRun grf;
  RowMatrix phi_q, phi_k;
  FeatureKernel feature_kernel;    // what phi_q phi_k^T estimates (the target of --reference)
  Eigen::MatrixXd importance_sigma;  // favor --draw importance: the proposal's Sigma* (d x d); else empty
  RowMatrix output, linear;        // GRF-masked and unmasked linear attention
  AttentionStats stats, linear_stats;
  NormalizerPolicy policy;
};

// --on-bad-normalizer: `auto` fails loudly (error) when f (alpha) or the features can be negative, the only way a
// normaliser can be <= 0, and clamps otherwise; error | clamp | skip as given (InputError naming the option).
NormalizerPolicy resolve_normalizer_policy(const std::string& normalizer, double eps, std::span<const double> f,
                                           FeatureKind features);

std::vector<HeadResult> run_attention(const DistributedGraph& g, const QkvRows& qkv, const AttentionConfig& config,
                                      const Log& log, const WalkLimits& limits = {});

}  // namespace graphrf
