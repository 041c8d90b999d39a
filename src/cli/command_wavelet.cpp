// `graphrf wavelet`: random wavelet features (de Bassompierre, Delvenne, Jacques 2026, Alg. 1) on the partitioned
// graph: node embeddings Phi with Phi Phi^T ~ h(L) for spectrally localised kernels h, the ones GRFs approximate
// poorly.
#include <sstream>

#include "graphrf/cli/cli.hpp"
#include "graphrf/grf/dense_gather.hpp"
#include "graphrf/graph/graph_output.hpp"
#include "graphrf/io/h5_output.hpp"
#include "graphrf/graph/laplacian_operator.hpp"
#include "graphrf/spectral/random_wavelet_features.hpp"
#include "graphrf/mpi/run_summary.hpp"
#include "graphrf/core/timer.hpp"

namespace graphrf {

void add_wavelet_options(po::options_description& desc) {
  add_graph_options(desc);
  add_kernel_options(desc);
  desc.add_options()
      ("rank,K", po::value<std::int64_t>(), "K: the rank of the embedding (required)")
      ("oversample", po::value<std::int64_t>()->default_value(-1), "r extra columns (-1: max(K/10, 15))")
      ("degree-chi", po::value<int>()->default_value(60), "degree of the Jackson-Chebyshev low-pass p_chi")
      ("degree-h", po::value<int>()->default_value(30), "degree of p_h ~ sqrt(h)")
      ("eigencount-order", po::value<int>()->default_value(50), "degree of the eigencount filters")
      ("dichotomy-eps", po::value<double>()->default_value(1e-2), "relative width at which the lambda_K search stops")
      ("count-tolerance", po::value<double>()->default_value(2.0), "lambda_K search: accept counts within z sd below K (0: exact)")
      ("probes", po::value<int>()->default_value(-1), "probe columns of the eigencount (-1: 2 round(ln N))")
      ("seed", po::value<std::uint64_t>()->default_value(1), "random seed (draws keyed by node, not by rank)")
      ("reference", po::bool_switch(), "dense exact h(L) (small graphs): spectral and Frobenius errors, best rank-K errors")
      ("out", po::value<std::string>(), "HDF5 output");
}

namespace {
struct WaveletErrors {
  double spectral = 0, frobenius = 0, best_spectral = 0, best_frobenius = 0;
};
}  // namespace

int run_wavelet(const CommandContext& ctx) {
  const Communicator& comm = ctx.comm;
  const auto& vm = ctx.vm;
  GraphOptions graph_options;
  KernelSpec kernel;
  WaveletOptions options;
  std::string out_path;
  const bool reference = vm["reference"].as<bool>();
  collective_try(comm, [&] {
    graph_options = graph_options_from(vm);
    kernel = kernel_spec_from(vm);
    if (!vm.count("rank")) throw InputError("--rank: required (the embedding rank K)");
    options.rank = vm["rank"].as<std::int64_t>();
    options.oversample = vm["oversample"].as<std::int64_t>();
    options.degree_chi = vm["degree-chi"].as<int>();
    options.degree_h = vm["degree-h"].as<int>();
    options.eigencount_order = vm["eigencount-order"].as<int>();
    options.dichotomy_eps = vm["dichotomy-eps"].as<double>();
    options.count_tolerance = vm["count-tolerance"].as<double>();
    options.n_probe = vm["probes"].as<int>();
    options.seed = vm["seed"].as<std::uint64_t>();
    if (vm.count("out")) out_path = vm["out"].as<std::string>();
  });
  const Log& log = ctx.log;
  Timer total_timer;
  const DistributedGraph g = load_graph_for_command(ctx, graph_options, out_path, reference);
  const auto h = [&](double lambda) { return kernel_of_laplacian_eigenvalue(kernel, lambda); };
  Timer timer;
  const DistributedOperator laplacian = normalized_laplacian_operator(g);
  const WaveletResult result = random_wavelet_features(laplacian, h, options);
  const double seconds = comm.max(timer.seconds());
  log.info("wavelet     " + describe(kernel) + ": K = " + std::to_string(result.rank) + ", r = " +
           std::to_string(result.oversample) + ", lambda_K ~ " + fmt(result.lambda_k, 5) + " (" +
           std::to_string(result.dichotomy.iterations) + " dichotomy steps), " + fmt(seconds) + " s");

  WaveletErrors e;
  if (reference) {
    // Exact h(L) and the best rank-K approximation from a dense eigendecomposition on rank 0.
    const Eigen::MatrixXd phi = gather_dense_block(comm, result.embedding_local, g.n_global());
    WalkOptions normalized;
    const Eigen::MatrixXd w = gather_dense_w(g, normalized);
    if (comm.is_root()) {
      const Eigen::MatrixXd lap = Eigen::MatrixXd::Identity(w.rows(), w.cols()) - w;
      Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(lap);
      Eigen::VectorXd hv = eig.eigenvalues().unaryExpr([&](double l) { return h(std::max(0.0, l)); });
      const Eigen::MatrixXd exact = eig.eigenvectors() * hv.asDiagonal() * eig.eigenvectors().transpose();
      const Eigen::MatrixXd diff = phi * phi.transpose() - exact;
      Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> diff_eig(diff, Eigen::EigenvaluesOnly);
      std::vector<double> sorted(hv.data(), hv.data() + hv.size());
      std::sort(sorted.rbegin(), sorted.rend());
      double tail2 = 0, all2 = 0;
      for (size_t j = 0; j < sorted.size(); ++j) {
        all2 += sorted[j] * sorted[j];
        if (static_cast<std::int64_t>(j) >= result.rank) tail2 += sorted[j] * sorted[j];
      }
      e.spectral = diff_eig.eigenvalues().cwiseAbs().maxCoeff() / sorted.front();
      e.frobenius = diff.norm() / exact.norm();
      e.best_spectral = static_cast<std::int64_t>(sorted.size()) > result.rank ? sorted[static_cast<size_t>(result.rank)] / sorted.front() : 0.0;
      e.best_frobenius = std::sqrt(tail2 / all2);
    }
    comm.broadcast(e);
    log.info("reference   relative error of Phi Phi^T vs h(L): spectral " + fmt(e.spectral, 6) + " (best rank-K " +
             fmt(e.best_spectral, 6) + "), Frobenius " + fmt(e.frobenius, 6) + " (best rank-K " + fmt(e.best_frobenius, 6) + ")");
  }
  std::ostringstream line;
  line << "nodes=" << g.n_global() << " rank=" << result.rank << " oversample=" << result.oversample
       << " lambda_k=" << result.lambda_k << " seconds=" << fmt(seconds, 4);
  if (reference)
    line << " spectral_error=" << e.spectral << " best_spectral_error=" << e.best_spectral << " frobenius_error=" << e.frobenius
         << " best_frobenius_error=" << e.best_frobenius;
  log.result(line.str());

  if (!out_path.empty()) {
    H5Output out(comm, out_path);
    out.write_provenance(ctx.command_line, comm.size(), ctx.config_text, options.seed);
    write_nodes(out, g);
    const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> rows = result.embedding_local;
    out.write_rows<double>("/embedding", std::span<const double>(rows.data(), static_cast<size_t>(rows.size())),
                           {static_cast<std::uint64_t>(rows.cols())});
    out.write_replicated<double>("/spectrum/lambda_K", std::vector<double>{result.lambda_k});
    out.write_replicated<double>("/spectrum/coefficients_chi", result.coeff_chi);
    out.write_replicated<double>("/spectrum/coefficients_h", result.coeff_h);
    out.set_attribute("/spectrum", "kernel", describe(kernel));
    out.set_attribute("/spectrum", "rank", result.rank);
    out.set_attribute("/spectrum", "oversample", result.oversample);
    if (reference) {
      out.set_attribute("/embedding", "relative_spectral_error", e.spectral);
      out.set_attribute("/embedding", "relative_frobenius_error", e.frobenius);
      out.set_attribute("/embedding", "best_rank_k_spectral_error", e.best_spectral);
      out.set_attribute("/embedding", "best_rank_k_frobenius_error", e.best_frobenius);
    }
    out.commit();
    log.info("wrote       " + out_path);
  }
  print_run_summary(log, comm, total_timer.seconds(), 0);  // bytes: only the walk phases count them
  return 0;
}

}  // namespace graphrf
