#pragma once
// `graphrf attention --reference`: the relative errors of each head's GRF-masked attention against softmax,
// M-masked softmax, M-masked linear attention (the exact kernel M), the GRF-estimate-masked linear attention,
// the unmasked linear baseline and the (M-masked) kernel the feature map estimates; their log line, RESULT figures and HDF5 datasets (/attention/reference).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "graphrf/attention/attention_pipeline.hpp"
#include "graphrf/core/report.hpp"
#include "graphrf/grf/dense_reference.hpp"
#include "graphrf/io/h5_output.hpp"
#include "graphrf/reference/reference_plan.hpp"
#include "graphrf/reference/sampled_attention_reference.hpp"
#include "graphrf/reference/sampled_kernel_reference.hpp"

namespace graphrf {

// The references of every head. The exact kernel is computed once per distinct kernel (heads with the same
// kernel share it), and densely from one eigendecomposition of W shared by all kernels; above the dense
// limit, from the sampled exact columns of each distinct kernel.
class AttentionReference {
 public:
  AttentionReference(const DistributedGraph& g, const ReferenceOptions& options, const WalkOptions& walk)
      : g_(g), options_(options), walk_(walk), dense_(dense_reference(options, g.n_global())) {}

  // Collective; the errors on every rank.
  SampledAttentionErrors errors(const QkvRows& qkv, int h, const HeadResult& r) {
    return dense_ ? dense_errors(qkv, h, r) : sampled_errors(qkv, h, r);
  }

 private:
  SampledAttentionErrors dense_errors(const QkvRows& qkv, int h, const HeadResult& r);
  SampledAttentionErrors sampled_errors(const QkvRows& qkv, int h, const HeadResult& r);

  const DistributedGraph& g_;
  ReferenceOptions options_;
  WalkOptions walk_;
  bool dense_;
  std::optional<DenseSpectrum> spectrum_;
  std::map<std::string, Eigen::MatrixXd> dense_exact_;
  std::map<std::string, SampledKernelColumns> sampled_exact_;
};

// "reference   relative error of the GRF result vs: ..." for one head (feature_kernel: the name of the kernel the
// feature map estimates; n_nodes: N; seconds: the head's reference).
std::string describe_attention_errors(const SampledAttentionErrors& e, const std::string& feature_kernel, std::int64_t n_nodes,
                                      double seconds);

// head<h>_error_vs_masked_linear, head<h>_error_vs_dense_grf, when sampled head<h>_error_vs_masked_linear_se, and
// head<h>_error_vs_masked_kernel (against the M-masked kernel the feature map estimates).
Report attention_error_figures(int h, const SampledAttentionErrors& e);

// Collective: /attention/reference/error_vs_* (one entry per head; with _standard_error and the attribute
// sampled_rows when the rows were sampled) and the attribute kernel (the feature map's kernel).
void write_attention_errors(H5Output& out, const std::vector<SampledAttentionErrors>& errors, const std::string& feature_kernel);

}  // namespace graphrf
