#include "graphrf/gp/gp_parameters.hpp"

#include <cmath>

#include "graphrf/core/error.hpp"

namespace graphrf {

GpLearn parse_gp_learn(std::string_view s) {
  if (s == "none") return GpLearn::none;
  if (s == "hyper") return GpLearn::hyper;
  if (s == "f") return GpLearn::f;
  throw InputError("gp.learn: expected none, hyper or f (got '" + std::string(s) + "')");
}

const char* gp_learn_name(GpLearn l) {
  switch (l) {
    case GpLearn::none: return "none";
    case GpLearn::hyper: return "hyper";
    case GpLearn::f: return "f";
  }
  return "?";
}

bool kernel_has_beta(const KernelSpec& k) {
  return k.kind == KernelKind::diffusion || k.kind == KernelKind::exp_adjacency ||
         k.kind == KernelKind::regularized_laplacian || k.kind == KernelKind::cosine;
}

GpParameters::GpParameters(KernelSpec kernel, GpLearn learn, int n_lengths, double sigma_f, double sigma_n)
    : kernel_(std::move(kernel)), learn_(learn), n_lengths_(n_lengths), sigma_f0_(sigma_f),
      learn_beta_(learn != GpLearn::f && kernel_has_beta(kernel_)) {
  if (!(sigma_f > 0) || !std::isfinite(sigma_f)) throw InputError("gp.sigma_f: must be finite and > 0");
  if (!(sigma_n > 0) || !std::isfinite(sigma_n)) throw InputError("gp.sigma_n: must be finite and > 0");
  if (learn_ == GpLearn::f) {
    for (double v : kernel_f_at(kernel_.beta)) initial_.push_back(sigma_f * v);
  } else {
    initial_.push_back(std::log(sigma_f));
    if (learn_beta_) initial_.push_back(std::log(kernel_.beta));
  }
  initial_.push_back(std::log(sigma_n));
}

std::vector<std::string> GpParameters::names() const {
  std::vector<std::string> out;
  if (learn_ == GpLearn::f) {
    for (int t = 0; t < n_lengths_; ++t) out.push_back("f_" + std::to_string(t));
  } else {
    out.push_back("log_sigma_f");
    if (learn_beta_) out.push_back("log_beta");
  }
  out.push_back("log_sigma_n");
  return out;
}

std::vector<double> GpParameters::kernel_f_at(double beta) const {
  KernelSpec k = kernel_;
  k.beta = beta;
  return kernel_f(k, n_lengths_);
}

double GpParameters::sigma_f(const std::vector<double>& p) const {
  return learn_ == GpLearn::f ? sigma_f0_ : std::exp(p[0]);
}

double GpParameters::beta(const std::vector<double>& p) const { return learn_beta_ ? std::exp(p[1]) : kernel_.beta; }

std::vector<double> GpParameters::f(const std::vector<double>& p) const {
  if (learn_ == GpLearn::f) return std::vector<double>(p.begin(), p.end() - 1);
  std::vector<double> out = kernel_f_at(beta(p));
  for (double& v : out) v *= sigma_f(p);
  return out;
}

Eigen::MatrixXd GpParameters::f_jacobian(const std::vector<double>& p) const {
  Eigen::MatrixXd j = Eigen::MatrixXd::Zero(n_lengths_, static_cast<Eigen::Index>(size()));
  if (learn_ == GpLearn::f) {
    j.leftCols(n_lengths_).setIdentity();
    return j;
  }
  const std::vector<double> f_now = f(p);
  for (int t = 0; t < n_lengths_; ++t) j(t, 0) = f_now[static_cast<size_t>(t)];  // d/d log sigma_f
  if (!learn_beta_) return j;
  const double beta = std::exp(p[1]);
  if (kernel_.kind == KernelKind::diffusion) {
    // f_t = sigma_f e^{-b/2} (b/2)^t / t! with b = beta * laplacian_scale (d_max under --weights combinatorial)
    // =>  d f_t / d log beta = f_t (t - b/2).
    const double b = beta * kernel_.laplacian_scale;
    for (int t = 0; t < n_lengths_; ++t) j(t, 1) = f_now[static_cast<size_t>(t)] * (t - b / 2);
    return j;
  }
  // Other kernels: central difference in log beta (smooth closed forms or the deconvolution recursion);
  // the truncation error is O(h^2) = 1e-8 relative.
  const double h = 1e-4;
  const std::vector<double> up = kernel_f_at(beta * std::exp(h)), down = kernel_f_at(beta * std::exp(-h));
  for (int t = 0; t < n_lengths_; ++t)
    j(t, 1) = sigma_f(p) * (up[static_cast<size_t>(t)] - down[static_cast<size_t>(t)]) / (2 * h);
  return j;
}

}  // namespace graphrf
