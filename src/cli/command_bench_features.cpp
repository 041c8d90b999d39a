// `graphrf bench-features`: Monte Carlo error of the random feature maps for softmax attention, after the
// claims of Farzam et al. 2026, "Data-aware random feature kernel for transformers": isotropic positive random
// features have high variance on anisotropic queries and keys, and the importance-sampled PRF of Theorem 3.2
// (--draw importance) or the data-aligned DARKFormer kernel help there.
//
// Data: n tokens with q, k ~ N(0, C) in R^d, scaled by d^-1/4 as the maps do; the covariance Lambda of the
// scaled vectors has eigenvalues geometric from --top-eigenvalue down by the factor --spread (anisotropic,
// in a random basis) or all equal to their mean (isotropic: the same trace); values v ~ N(0, I_4); the mask
// M_ij = exp(-|i - j| / --mask-length) of a sequence. For every method and m, over --seeds feature seeds:
//   kernel:  ||K^ - K||_F^2 / ||K||_F^2,  K = exp(Q K^T / sqrt(d)), K^ = phi(Q) phi(K)^T (unshifted);
//   output:  ||A^ - A||_F^2 / ||A||_F^2,  A = ((K o M) V) / rowsum(K o M), A^ the same with K^;
// mean and 95% interval (1.96 standard errors). dark estimates its own kernel exp(q^T Lambda^-1 k / sqrt(d))
// (whitening): `dark` measures it against that kernel (its Monte Carlo error), `dark-vs-softmax` against softmax
// (the change of kernel as well). The same data and seeds on every rank; rank 0 computes and prints.
#include <cmath>
#include <iomanip>
#include <optional>
#include <sstream>

#include "graphrf/attention/feature_kernel.hpp"
#include "graphrf/attention/feature_map.hpp"
#include "graphrf/attention/importance_sampling.hpp"
#include "graphrf/attention/whitening.hpp"
#include "graphrf/cli/commands.hpp"
#include "graphrf/cli/help.hpp"
#include "graphrf/cli/mean_interval.hpp"
#include "graphrf/core/counter_rng.hpp"
#include "graphrf/core/option_error.hpp"

namespace graphrf {

namespace {

struct BenchFeaturesOptions {
  int tokens = 128, dim = 16, seeds = 50;
  std::string num_features_list, methods;
  double spread = 100.0, top_eigenvalue = 0.4, mask_length = 8.0;
  std::uint64_t seed = 1;
};

void declare_bench_features_options(po::options_description& desc, BenchFeaturesOptions& o) {
  desc.add_options()
      ("tokens", po::value(&o.tokens)->default_value(128), "queries = keys = values n")
      ("dim", po::value(&o.dim)->default_value(16), "d of the queries and keys")
      ("num-features-list", po::value(&o.num_features_list)->default_value("16,64,256,1024"), "feature counts m")
      ("methods", po::value(&o.methods)->default_value("iid,orthogonal,orthogonal+pnc,antithetic,importance,dark,dark-vs-softmax"),
       "methods, comma-separated")
      ("seeds", po::value(&o.seeds)->default_value(50), "feature seeds per configuration")
      ("spread", double_value(&o.spread, 100.0), "largest / smallest eigenvalue of the anisotropic covariance")
      ("top-eigenvalue", double_value(&o.top_eigenvalue, 0.4), "largest eigenvalue of the scaled anisotropic covariance (< 1/2)")
      ("mask-length", double_value(&o.mask_length, 8.0), "mask exp(-|i - j| / length)")
      ("seed", po::value(&o.seed)->default_value(1), "seed of the data");
}

// Standard normals keyed by (seed, purpose, row, column): the data do not depend on the rank.
Eigen::MatrixXd gaussian(std::uint64_t seed, std::uint64_t purpose, int rows, int cols) {
  Eigen::MatrixXd x(rows, cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; c += 2) {
      const auto w = philox_block(seed, RngDomain::feature_draw, 1u << 20, purpose, static_cast<std::uint64_t>(r),
                                  static_cast<std::uint64_t>(c / 2));
      const auto [z0, z1] = standard_normal_pair(w[0], w[1]);
      x(r, c) = z0;
      if (c + 1 < cols) x(r, c + 1) = z1;
    }
  return x;
}

struct Data {
  std::string name;
  Eigen::MatrixXd q, k, v;  // unscaled inputs (n x d, n x d, n x 4)
};

// q, k with covariance d^1/2 Lambda, so that d^-1/4 q has covariance Lambda (eigenvalues `eig`, basis `basis`).
Data make_data(const std::string& name, const Eigen::VectorXd& eig, const Eigen::MatrixXd& basis, int n, std::uint64_t seed) {
  const auto d = static_cast<double>(eig.size());
  const Eigen::MatrixXd root = basis * (eig.array().sqrt() * std::pow(d, 0.25)).matrix().asDiagonal() * basis.transpose();
  Data out;
  out.name = name;
  out.q = gaussian(seed, 1, n, static_cast<int>(eig.size())) * root;
  out.k = gaussian(seed, 2, n, static_cast<int>(eig.size())) * root;
  out.v = gaussian(seed, 3, n, 4);
  return out;
}

Eigen::MatrixXd pooled_covariance(const Data& data) {
  const int d = static_cast<int>(data.q.cols());
  Eigen::MatrixXd x(2 * data.q.rows(), d);
  x << data.q, data.k;
  x *= std::pow(static_cast<double>(d), -0.25);
  x.rowwise() -= x.colwise().mean();
  return (x.transpose() * x / static_cast<double>(x.rows() - 1)).eval();
}

Eigen::MatrixXd masked_output(const Eigen::MatrixXd& scores, const Eigen::MatrixXd& mask, const Eigen::MatrixXd& v) {
  const Eigen::MatrixXd s = scores.cwiseProduct(mask);
  return (s.rowwise().sum().cwiseInverse().asDiagonal() * (s * v)).eval();
}

double relative_squared_error(const Eigen::MatrixXd& estimate, const Eigen::MatrixXd& exact) {
  return (estimate - exact).squaredNorm() / exact.squaredNorm();
}

int run_bench_features(const CommandContext& ctx, BenchFeaturesOptions& options) {
  const Communicator& comm = ctx.comm;
  const Log& log = ctx.log;
  std::vector<int> feature_counts;
  std::vector<std::string> methods;
  int n = 0, d = 0, seeds = 0;
  double spread = 0, top = 0, mask_length = 0;
  collective_try(comm, [&] {
    n = options.tokens;
    d = options.dim;
    seeds = options.seeds;
    spread = options.spread;
    top = options.top_eigenvalue;
    mask_length = options.mask_length;
    if (n < 2) throw InputError("--tokens: must be >= 2 (got " + std::to_string(n) + ")");
    if (d < 1) throw InputError("--dim: must be >= 1 (got " + std::to_string(d) + ")");
    if (seeds < 2) throw InputError("--seeds: must be >= 2 (got " + std::to_string(seeds) + ")");
    if (!(spread >= 1) || !std::isfinite(spread)) throw InputError("--spread: must be finite and >= 1 (got " + format_number(spread) + ")");
    if (!(top > 0 && top < 0.5)) throw InputError("--top-eigenvalue: must be in (0, 1/2) (got " + format_number(top) + ")");
    if (!(mask_length > 0) || !std::isfinite(mask_length))
      throw InputError("--mask-length: must be finite and > 0 (got " + format_number(mask_length) + ")");
    for (const auto& s : split_list(options.num_features_list, ',')) {
      const int m = std::stoi(s);
      if (m < 2 || m % 2 != 0 || m > kMaxFeatures)
        throw InputError("--num-features-list: every m must be even, >= 2 and <= " + std::to_string(kMaxFeatures) + " (got " + s + ")");
      feature_counts.push_back(m);
    }
    for (const auto& s : split_list(options.methods, ',')) {
      if (s != "iid" && s != "orthogonal" && s != "orthogonal+pnc" && s != "antithetic" && s != "importance" && s != "dark" &&
          s != "dark-vs-softmax")
        throw InputError("--methods: unknown method '" + s +
                         "' (expected iid, orthogonal, orthogonal+pnc, antithetic, importance, dark or dark-vs-softmax)");
      methods.push_back(s);
    }
  });
  if (!comm.is_root()) return 0;

  // The two data sets: anisotropic (geometric eigenvalues in a random basis) and isotropic (same trace).
  const std::uint64_t seed = options.seed;
  Eigen::VectorXd eig(d);
  for (int i = 0; i < d; ++i) eig(i) = top * std::pow(spread, -static_cast<double>(i) / std::max(1, d - 1));
  const Eigen::MatrixXd basis = Eigen::HouseholderQR<Eigen::MatrixXd>(gaussian(seed, 4, d, d)).householderQ();
  const std::vector<Data> datasets = {make_data("isotropic", Eigen::VectorXd::Constant(d, eig.mean()), basis, n, seed),
                                      make_data("anisotropic", eig, basis, n, seed)};
  Eigen::MatrixXd mask(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) mask(i, j) = std::exp(-std::abs(i - j) / mask_length);

  std::ostringstream head;
  head << std::left << std::setw(12) << "data" << std::setw(17) << "method" << std::right << std::setw(6) << "m" << std::setw(26)
       << "kernel rel. MSE +- 95%" << std::setw(26) << "output rel. MSE +- 95%";
  log.info("features    " + std::to_string(n) + " tokens, d = " + std::to_string(d) + ", " + std::to_string(seeds) +
           " seeds, anisotropic eigenvalues " + fmt(top, 3) + " .. " + fmt(top / spread, 5) + ", mask exp(-|i-j|/" + fmt(mask_length, 3) + ")");
  log.info(head.str());
  for (const Data& data : datasets) {
    const Eigen::MatrixXd lambda = pooled_covariance(data);
    const double sqrt_d = std::sqrt(static_cast<double>(d));
    const Eigen::MatrixXd softmax_kernel = (data.q * data.k.transpose() / sqrt_d).array().exp().matrix();
    const Eigen::MatrixXd softmax_output = masked_output(softmax_kernel, mask, data.v);
    for (const std::string& method : methods) {
      FeatureOptions o;
      o.kind = FeatureKind::favor;
      std::optional<ImportanceProposal> proposal;
      Eigen::MatrixXd dark_m;
      Eigen::MatrixXd exact_kernel = softmax_kernel, exact_output = softmax_output;
      if (method == "iid") o.draw = FrequencyDraw::iid;
      if (method == "orthogonal+pnc") o.draw = FrequencyDraw::orthogonal_pnc;
      if (method == "antithetic") o.antithetic = true;
      if (method == "importance") {
        o.draw = FrequencyDraw::importance;
        proposal = importance_proposal(lambda);
      }
      if (method == "dark" || method == "dark-vs-softmax") {
        o.kind = FeatureKind::dark;
        dark_m = inverse_sqrt(lambda, 0.0);
      }
      for (const int m : feature_counts) {
        o.m = m;
        std::vector<double> kernel_errors, output_errors;
        for (int s = 0; s < seeds; ++s) {
          o.seed = 1 + static_cast<std::uint64_t>(s);
          const FeatureMap map(o, d, dark_m.size() > 0 ? &dark_m : nullptr, proposal ? &*proposal : nullptr);
          if (method == "dark" && s == 0 && m == feature_counts.front()) {
            const FeatureKernel own = feature_kernel(map);
            exact_kernel = kernel_logits(own, data.q, data.k).array().exp().matrix();
            exact_output = masked_output(exact_kernel, mask, data.v);
          }
          const Eigen::MatrixXd estimate = map.apply_unshifted(data.q) * map.apply_unshifted(data.k).transpose();
          kernel_errors.push_back(relative_squared_error(estimate, exact_kernel));
          output_errors.push_back(relative_squared_error(masked_output(estimate, mask, data.v), exact_output));
        }
        const MeanInterval ke = mean_interval(kernel_errors), oe = mean_interval(output_errors);
        std::ostringstream row;
        row << std::left << std::setw(12) << data.name << std::setw(17) << method << std::right << std::setw(6) << m << std::setw(14)
            << sci(ke.mean) << " +- " << std::setw(8) << sci(ke.half_width) << std::setw(14) << sci(oe.mean) << " +- " << std::setw(8)
            << sci(oe.half_width);
        log.info(row.str());
        std::ostringstream line;
        line << "bench=features data=" << data.name << " method=" << method << " m=" << m << " tokens=" << n << " dim=" << d
             << " seeds=" << seeds << " kernel_rel_mse=" << ke.mean << " kernel_ci95=" << ke.half_width
             << " output_rel_mse=" << oe.mean << " output_ci95=" << oe.half_width;
        log.result(line.str());
      }
    }
  }
  return 0;
}

}  // namespace

Command bench_features_command() {
  return make_command<BenchFeaturesOptions>(
      "bench-features", "benchmark: Monte Carlo error of the random feature maps (iid, orthogonal, PNC, antithetic, importance, dark)",
      declare_bench_features_options, run_bench_features);
}

}  // namespace graphrf
