#pragma once
// One frame, start to end on one process (Reid et al. 2025a, "Linear transformer topological masking with
// graph random features", §4.4 and App. C.3: the particle-dynamics workload, whose graph changes every time
// step): the kNN (or radius) graph of its points, walks from every point, asymmetric GRFs with f = alpha
// (Alg. 2: the mask estimate is Phi itself), query/key features and masked attention. The rows equal what
// `graphrf attention --points FRAME --estimator asymmetric` gives for the same frame and seed, at any rank count.
#include <cstdint>
#include <string>
#include <vector>

#include "graphrf/attention/feature_map.hpp"
#include "graphrf/attention/masked_attention.hpp"
#include "graphrf/attention/qkv.hpp"
#include "graphrf/frames/frame_stack.hpp"
#include "graphrf/grf/kernel.hpp"
#include "graphrf/grf/local_grf.hpp"
#include "graphrf/points/point_graph.hpp"

namespace graphrf {

struct FrameConfig {
  PointGraphOptions graph;
  KernelSpec kernel;
  WalkOptions walk;
  FeatureOptions features;
  std::string normalizer = "auto";  // --on-bad-normalizer (resolved with alpha as the single-graph path does)
  double normalizer_eps = 1e-12;
  int synthetic_d = 8, synthetic_dv = 8;  // Q/K/V drawn per point id when the frame has none
};

// What every frame shares: the checked configuration, alpha and the feature map (its random draws).
class FrameAttention {
 public:
  // InputError naming the option for walk options the frames path does not take, weights other than
  // normalized (rho(W) <= 1 is what the kernel check needs without a power iteration per frame), a kernel
  // that does not converge, or feature options that do not fit d.
  FrameAttention(const FrameConfig& config, int d_qk);

  struct Times {
    double graph = 0, walks = 0, attention = 0;
    Times& operator+=(const Times& o) {
      graph += o.graph, walks += o.walks, attention += o.attention;
      return *this;
    }
  };
  struct Result {
    RowMatrix output;          // N_f x d_v, rows in point order (= canonical order: ids 0 .. N_f - 1)
    LocalWalkStats walks;
    std::int64_t grf_nonzeros = 0, edges = 0;
    AttentionStats stats;
  };

  // InputError naming the frame for N_f < k + 1, a bad edge weight or a bad normaliser (policy error).
  Result run(const Frame& frame, Times& times) const;

 private:
  const QkvRows& synthetic_rows(std::int64_t n) const;

  FrameConfig config_;
  std::vector<double> alpha_;
  NormalizerPolicy policy_;
  FeatureMap map_;
  mutable QkvRows synthetic_;  // cache of synthetic_rows (one FrameAttention per thread)
};

}  // namespace graphrf
