#include "graphrf/reference/sampled_attention_reference.hpp"

#include <algorithm>
#include <cmath>

#include "graphrf/mpi/phase_progress.hpp"
#include "graphrf/mpi/reproducible_sum.hpp"

namespace graphrf {

namespace {
constexpr int kReferences = 4;  // softmax, masked softmax, masked linear, estimate-masked linear
constexpr int kKernelReferences = 2;  // the feature map's kernel, unmasked and M-masked
constexpr std::int64_t kSamplesPerPass = 8;  // bounds the n_local x (4 x samples) weight block

// Per-sample maxima over all ranks of the columns of logits (n x s), which keep exp() finite and cancel in
// num / den.
std::vector<double> column_max(const Communicator& comm, const Eigen::MatrixXd& logits) {
  std::vector<double> out(static_cast<size_t>(logits.cols()), -INFINITY);
  for (Eigen::Index c = 0; c < logits.cols(); ++c)
    if (logits.rows() > 0) out[static_cast<size_t>(c)] = logits.col(c).maxCoeff();
  return comm.allreduce(std::move(out), MPI_MAX);
}

// Squared row norms of (output - reference) and of reference, for every sampled row.
void add_row_errors(const Eigen::MatrixXd& output_rows, const Eigen::MatrixXd& reference_rows, std::vector<double>& error_sq,
                    std::vector<double>& reference_sq) {
  for (Eigen::Index c = 0; c < output_rows.rows(); ++c) {
    error_sq.push_back((output_rows.row(c) - reference_rows.row(c)).squaredNorm());
    reference_sq.push_back(reference_rows.row(c).squaredNorm());
  }
}
}  // namespace

SampledAttentionErrors sampled_attention_errors(const DistributedGraph& g, const NodeSample& sample, const RowMatrix& q,
                                                const RowMatrix& k, const RowMatrix& v, const RowMatrix& phi_q,
                                                const RowMatrix& phi_k, const RowMatrix& output, const RowMatrix& linear,
                                                const Eigen::MatrixXd& exact_columns, const Eigen::MatrixXd& estimate_columns,
                                                const FeatureKernel& kernel) {
  const Communicator& comm = *g.comm;
  const RowBlockReducer reducer(comm, g.n_global(), g.canonical_index);
  const std::int64_t s = sample.size(), n = g.n_local(), dv = comm.max(static_cast<std::int64_t>(v.cols()));
  const Eigen::MatrixXd q_s = replicate_sampled_rows(comm, sample, q), phi_q_s = replicate_sampled_rows(comm, sample, phi_q);
  const Eigen::MatrixXd out_s = replicate_sampled_rows(comm, sample, output), lin_s = replicate_sampled_rows(comm, sample, linear);
  const double inv_sqrt_d = 1.0 / std::sqrt(static_cast<double>(comm.max(static_cast<std::int64_t>(q.cols()))));
  Eigen::MatrixXd values_and_one(n, dv + 1);
  values_and_one.leftCols(v.cols()) = v;
  values_and_one.col(dv).setOnes();
  // logits (n x s) and their per-sample maxima, which keep exp() finite and cancel in num / den.
  const Eigen::MatrixXd logits = (k * q_s.transpose()) * inv_sqrt_d;
  const std::vector<double> max_logit = column_max(comm, logits);
  const Eigen::MatrixXd feature_scores = phi_k * phi_q_s.transpose();  // n x s
  // The feature map's kernel: its own logits (dark: Sigma), or the deterministic feature product.
  const Eigen::MatrixXd kernel_logit =
      !kernel.exponential ? Eigen::MatrixXd() : n > 0 ? kernel_logits(kernel, k, q_s) : Eigen::MatrixXd(0, s);
  const std::vector<double> max_kernel_logit = kernel.exponential ? column_max(comm, kernel_logit) : std::vector<double>();
  std::vector<Eigen::MatrixXd> reference(kReferences, Eigen::MatrixXd(s, dv));
  std::vector<Eigen::MatrixXd> kernel_reference(kKernelReferences, Eigen::MatrixXd(s, dv));
  PhaseProgress progress("reference   exact attention rows of " + std::to_string(s) + " sampled nodes", s);
  for (std::int64_t first = 0; first < s; first += kSamplesPerPass) {
    progress.step(first);
    const std::int64_t count = std::min(kSamplesPerPass, s - first);
    Eigen::MatrixXd weights(n, kReferences * count);
    for (std::int64_t c = 0; c < count; ++c) {
      const std::int64_t col = first + c;
      const Eigen::VectorXd soft = (logits.col(col).array() - max_logit[static_cast<size_t>(col)]).exp().matrix();
      weights.col(kReferences * c + 0) = soft;
      weights.col(kReferences * c + 1) = soft.cwiseProduct(exact_columns.col(col));
      weights.col(kReferences * c + 2) = feature_scores.col(col).cwiseProduct(exact_columns.col(col));
      weights.col(kReferences * c + 3) = feature_scores.col(col).cwiseProduct(estimate_columns.col(col));
    }
    const Eigen::MatrixXd sums = reducer.cross(weights, values_and_one);  // (4 count) x (dv + 1)
    for (std::int64_t c = 0; c < count; ++c)
      for (int r = 0; r < kReferences; ++r)
        reference[static_cast<size_t>(r)].row(first + c) = sums.row(kReferences * c + r).head(dv) / sums(kReferences * c + r, dv);
    // Separately, so that the sums of the references above keep their bits.
    Eigen::MatrixXd kernel_weights(n, kKernelReferences * count);
    for (std::int64_t c = 0; c < count; ++c) {
      const std::int64_t col = first + c;
      const Eigen::VectorXd scores =
          kernel.exponential ? (kernel_logit.col(col).array() - max_kernel_logit[static_cast<size_t>(col)]).exp().matrix()
                             : Eigen::VectorXd(feature_scores.col(col));
      kernel_weights.col(kKernelReferences * c + 0) = scores;
      kernel_weights.col(kKernelReferences * c + 1) = scores.cwiseProduct(exact_columns.col(col));
    }
    const Eigen::MatrixXd kernel_sums = reducer.cross(kernel_weights, values_and_one);
    for (std::int64_t c = 0; c < count; ++c)
      for (int r = 0; r < kKernelReferences; ++r)
        kernel_reference[static_cast<size_t>(r)].row(first + c) =
            kernel_sums.row(kKernelReferences * c + r).head(dv) / kernel_sums(kKernelReferences * c + r, dv);
  }
  SampledAttentionErrors out;
  SampledError* targets[kReferences] = {&out.softmax, &out.masked_softmax, &out.masked_linear, &out.grf_dense};
  for (int r = 0; r < kReferences; ++r) {
    std::vector<double> e, m;
    add_row_errors(out_s, reference[static_cast<size_t>(r)], e, m);
    *targets[r] = sampled_relative_error(e, m, g.n_global());
  }
  SampledError* kernel_targets[kKernelReferences] = {&out.kernel, &out.masked_kernel};
  for (int r = 0; r < kKernelReferences; ++r) {
    std::vector<double> e, m;
    add_row_errors(out_s, kernel_reference[static_cast<size_t>(r)], e, m);
    *kernel_targets[r] = sampled_relative_error(e, m, g.n_global());
  }
  std::vector<double> e, m;
  add_row_errors(out_s, lin_s, e, m);
  out.linear = sampled_relative_error(e, m, g.n_global());
  return out;
}

}  // namespace graphrf
