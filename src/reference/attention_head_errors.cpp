#include "graphrf/reference/attention_head_errors.hpp"

#include <sstream>

#include "graphrf/attention/attention_reference.hpp"
#include "graphrf/grf/dense_gather.hpp"
#include "graphrf/mpi/log.hpp"

namespace graphrf {

namespace {

Eigen::MatrixXd gather_dense(const DistributedGraph& g, const RowMatrix& local) {
  return gather_dense_block(*g.comm, local, g.n_global());
}

// A key naming a kernel exactly (describe() abbreviates long coefficient lists).
std::string kernel_key(const KernelSpec& k) {
  std::ostringstream key;
  key.precision(17);
  key << static_cast<int>(k.kind) << ' ' << k.beta << ' ' << k.power << ' ' << k.shift << ' ' << k.laplacian_scale;
  for (const double c : k.coefficients) key << ' ' << c;
  return key.str();
}

double sq(double x) { return x * x; }

std::string with_error(const SampledError& e) {
  return fmt(e.value, 6) + (e.exact() ? "" : " +- " + fmt(e.standard_error, 6));
}

}  // namespace

SampledAttentionErrors AttentionReference::dense_errors(const QkvRows& qkv, int h, const HeadResult& r) {
  const Communicator& comm = *g_.comm;
  const auto head = static_cast<size_t>(h);
  const Eigen::MatrixXd q = gather_dense(g_, qkv.q[head]), k = gather_dense(g_, qkv.k[head]), v = gather_dense(g_, qkv.v[head]),
                        pq = gather_dense(g_, r.phi_q), pk = gather_dense(g_, r.phi_k), out = gather_dense(g_, r.output),
                        lin = gather_dense(g_, r.linear);
  if (!spectrum_) {
    const Eigen::MatrixXd w = gather_dense_w(g_, walk_);
    spectrum_ = comm.is_root() ? symmetric_spectrum(w) : DenseSpectrum{};
  }
  const Eigen::MatrixXd estimate = dense_kernel_estimate(g_, r.grf);
  std::vector<double> e(7, 0.0);
  if (comm.is_root()) {
    const auto key = kernel_key(r.kernel);
    if (!dense_exact_.count(key)) dense_exact_.emplace(key, kernel_matrix_from_spectrum(r.kernel, *spectrum_));
    const Eigen::MatrixXd& exact = dense_exact_.at(key);
    const Eigen::MatrixXd scores = kernel_scores(r.feature_kernel, q, k, pq, pk);
    e = {relative_error(out, softmax_attention(q, k, v)), relative_error(out, masked_softmax_attention(q, k, v, exact)),
         relative_error(out, masked_linear_attention(pq, pk, v, exact)),
         relative_error(out, masked_linear_attention(pq, pk, v, estimate)), relative_error(out, lin),
         relative_error(out, score_attention(scores, v, Eigen::MatrixXd::Ones(scores.rows(), scores.cols()))),
         relative_error(out, score_attention(scores, v, exact))};
  }
  comm.broadcast(e);
  SampledAttentionErrors errors;
  SampledError* targets[] = {&errors.softmax, &errors.masked_softmax, &errors.masked_linear, &errors.grf_dense, &errors.linear,
                             &errors.kernel, &errors.masked_kernel};
  for (size_t i = 0; i < e.size(); ++i) *targets[i] = sampled_relative_error(std::vector<double>{sq(e[i])}, std::vector<double>{1.0}, 1);
  for (auto* t : targets) t->rows = t->samples = g_.n_global();
  return errors;
}

SampledAttentionErrors AttentionReference::sampled_errors(const QkvRows& qkv, int h, const HeadResult& r) {
  const auto key = kernel_key(r.kernel);
  if (!sampled_exact_.count(key))
    sampled_exact_.emplace(key, sampled_kernel_columns(g_, r.kernel, walk_, options_.samples, walk_.seed));
  const SampledKernelColumns& exact = sampled_exact_.at(key);
  const auto head = static_cast<size_t>(h);
  return sampled_attention_errors(g_, exact.sample, qkv.q[head], qkv.k[head], qkv.v[head], r.phi_q, r.phi_k, r.output, r.linear,
                                  exact.exact, sampled_estimate_columns(g_, r.grf, exact.sample), r.feature_kernel);
}

std::string describe_attention_errors(const SampledAttentionErrors& e, const std::string& feature_kernel, std::int64_t n_nodes,
                                      double seconds) {
  const std::string how = e.softmax.exact() ? "dense" : "sampled: " + std::to_string(e.softmax.samples) + " of " +
                                                             std::to_string(n_nodes) + " rows, +- standard error";
  return "reference   relative error of the GRF result vs: " +
         std::string(e.grf_dense.exact() ? "dense GRF-masked " : "GRF-estimate-masked ") + sci(e.grf_dense.value) + "  exact M-masked linear " + with_error(e.masked_linear) +
         "  exact M-masked softmax " + with_error(e.masked_softmax) + "  softmax " + with_error(e.softmax) +
         "  unmasked linear " + with_error(e.linear) + "  feature kernel " + feature_kernel + ": M-masked " +
         with_error(e.masked_kernel) + ", unmasked " + with_error(e.kernel) + " (" + how + ", " + fmt(seconds, 2) + " s)";
}

Report attention_error_figures(int h, const SampledAttentionErrors& e) {
  const std::string head = "head" + std::to_string(h);
  Report report;
  report.number(head + "_error_vs_masked_linear", e.masked_linear.value, 8).significant(head + "_error_vs_dense_grf", e.grf_dense.value);
  if (!e.masked_linear.exact()) report.number(head + "_error_vs_masked_linear_se", e.masked_linear.standard_error, 8);
  report.number(head + "_error_vs_masked_kernel", e.masked_kernel.value, 8);
  return report;
}

void write_attention_errors(H5Output& out, const std::vector<SampledAttentionErrors>& errors, const std::string& feature_kernel) {
  const std::pair<const char*, SampledError SampledAttentionErrors::*> fields[] = {
      {"error_vs_softmax", &SampledAttentionErrors::softmax},
      {"error_vs_masked_softmax", &SampledAttentionErrors::masked_softmax},
      {"error_vs_masked_linear", &SampledAttentionErrors::masked_linear},
      {"error_vs_dense_grf", &SampledAttentionErrors::grf_dense},
      {"error_vs_unmasked_linear", &SampledAttentionErrors::linear},
      {"error_vs_kernel", &SampledAttentionErrors::kernel},
      {"error_vs_masked_kernel", &SampledAttentionErrors::masked_kernel}};
  const bool sampled = !errors.front().softmax.exact();
  for (const auto& [name, field] : fields) {
    std::vector<double> values, standard_errors;
    for (const auto& e : errors) values.push_back((e.*field).value), standard_errors.push_back((e.*field).standard_error);
    out.write_replicated<double>("/attention/reference/" + std::string(name), values);
    if (sampled) out.write_replicated<double>("/attention/reference/" + std::string(name) + "_standard_error", standard_errors);
  }
  if (sampled) out.set_attribute("/attention/reference", "sampled_rows", errors.front().softmax.samples);
  out.set_attribute("/attention/reference", "kernel", feature_kernel);
}

}  // namespace graphrf
