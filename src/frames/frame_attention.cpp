#include "graphrf/frames/frame_attention.hpp"

#include <cmath>

#include "graphrf/attention/attention_pipeline.hpp"
#include "graphrf/attention/qkv.hpp"
#include "graphrf/core/error.hpp"
#include "graphrf/core/timer.hpp"
#include "graphrf/points/local_point_graph.hpp"

namespace graphrf {

namespace {

const FrameConfig& checked(const FrameConfig& config) {
  check_local_walk_options(config.walk);
  if (config.walk.weights != WeightMode::normalized)
    throw InputError("walk.weights: the frames path uses the normalised adjacency (rho(W) <= 1); got " +
                     std::string(weight_mode_name(config.walk.weights)));
  try {
    validate(config.kernel, 1.0);  // the spectral radius of the normalised adjacency
  } catch (const std::invalid_argument& e) {
    throw InputError(std::string("kernel.kind: ") + e.what());
  }
  return config;
}

// `rows` itself when it has n rows, else its first n rows copied to `scratch`.
const RowMatrix& first_rows(const RowMatrix& rows, std::int64_t n, RowMatrix& scratch) {
  if (rows.rows() == n) return rows;
  scratch = rows.topRows(n);
  return scratch;
}

}  // namespace

FrameAttention::FrameAttention(const FrameConfig& config, int d_qk)
    : config_(checked(config)),
      alpha_(kernel_alpha(config.kernel, static_cast<int>(config.walk.max_length) + 1)),
      policy_(resolve_normalizer_policy(config.normalizer, config.normalizer_eps, alpha_, config.features.kind)),
      map_(config.features, d_qk) {}

// Synthetic Q/K/V rows are drawn per point id, and every frame's ids are 0 .. N_f - 1: draw them once for the
// largest frame seen and reuse the first N_f rows.
const QkvRows& FrameAttention::synthetic_rows(std::int64_t n) const {
  if (synthetic_.q.empty() || synthetic_.q[0].rows() < n) {
    std::vector<std::int64_t> ids(static_cast<size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) ids[static_cast<size_t>(i)] = i;
    synthetic_ = synthetic_qkv_for_ids(ids, 1, config_.synthetic_d, config_.synthetic_dv, config_.walk.seed);
  }
  return synthetic_;
}

FrameAttention::Result FrameAttention::run(const Frame& frame, Times& times) const {
  const std::string where = (frame.source.empty() ? "" : frame.source + ": ") + "frame " + std::to_string(frame.index);
  Result result;
  Timer timer;
  LocalGraph graph;
  try {
    graph = build_local_point_graph(frame.cloud, config_.graph);
  } catch (const InputError& e) {
    throw InputError(where + ": " + e.what());
  }
  result.edges = graph.n_arcs() / 2;
  times.graph += timer.seconds();
  timer.reset();
  const SparseRows phi = local_grf(graph, config_.walk, alpha_, result.walks);  // asymmetric: f = alpha
  result.grf_nonzeros = static_cast<std::int64_t>(phi.col.size());
  times.walks += timer.seconds();
  timer.reset();
  // Q/K/V rows of the frame are its points' rows, i.e. canonical order (ids 0 .. N_f - 1); the features are
  // computed in that order and the attention pass looks up graph node j's rows at graph.canonical[j].
  const bool given = frame.q.rows() > 0;
  const QkvRows* synthetic = given ? nullptr : &synthetic_rows(graph.n());
  const std::int64_t n = graph.n();
  RowMatrix q_cut, k_cut, v_cut;  // the synthetic cache may hold more rows than this frame has points
  const RowMatrix& q = first_rows(given ? frame.q : synthetic->q[0], n, q_cut);
  const RowMatrix& k = first_rows(given ? frame.k : synthetic->k[0], n, k_cut);
  const RowMatrix& v = first_rows(given ? frame.v : synthetic->v[0], n, v_cut);
  const RowMatrix phi_q = map_.apply_rows(q, FeatureRole::query);
  double shift = 0.0;  // the random maps' key stabiliser (relu and elu1 have none)
  if (is_random(map_.kind())) {
    shift = map_.key_max_logit(Eigen::MatrixXd(k));
    if (!std::isfinite(shift)) shift = 0.0;
  }
  const RowMatrix phi_k = map_.apply_rows(k, FeatureRole::key, shift);
  try {
    result.output = local_asymmetric_attention(phi, phi_q, phi_k, v, graph.canonical, policy_, result.stats);
  } catch (const InputError& e) {
    throw InputError(where + ": " + e.what());
  }
  times.attention += timer.seconds();
  return result;
}

}  // namespace graphrf
