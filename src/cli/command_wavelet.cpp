// `graphrf wavelet`: random wavelet features (de Bassompierre, Delvenne, Jacques 2026, Alg. 1) on the partitioned
// graph: node embeddings Phi with Phi Phi^T ~ h(L) for spectrally localised kernels h, the ones GRFs approximate
// poorly.
#include <sstream>

#include "graphrf/cli/cli.hpp"
#include "graphrf/grf/dense_gather.hpp"
#include "graphrf/graph/canonical_order.hpp"
#include "graphrf/graph/graph_output.hpp"
#include "graphrf/io/h5_output.hpp"
#include "graphrf/graph/laplacian_operator.hpp"
#include "graphrf/spectral/random_wavelet_features.hpp"
#include "graphrf/mpi/run_summary.hpp"
#include "graphrf/reference/sampled_embedding_reference.hpp"
#include "graphrf/core/timer.hpp"

namespace graphrf {

void add_wavelet_options(po::options_description& desc) {
  add_graph_options(desc);
  add_kernel_options(desc);
  add_reference_options(desc, "h(L) and report the relative errors of Phi Phi^T (spectral and Frobenius when dense, "
                        "with the best rank-K and rank-(K + r) errors)");
  po::options_description features("features (random wavelet features)");
  features.add_options()
      ("embedding-dim,K", po::value<std::int64_t>(), "K: the rank of the embedding (required)")
      ("laplacian", po::value<std::string>()->default_value("normalized"),
       "normalized: L = I - D^-1/2 A D^-1/2 (spectrum in [0, 2]) | combinatorial: L = D - A (PyGSP's default; "
       "spectrum in [0, 2 max degree])")
      ("rank", po::value<std::int64_t>(), "deprecated name of --embedding-dim (it read like a count of MPI ranks)")
      ("oversample", po::value<std::int64_t>()->default_value(-1), "r extra columns (-1: max(K/10, 15))")
      ("degree-chi", po::value<int>()->default_value(60), "degree of the Jackson-Chebyshev low-pass p_chi")
      ("subspace-iterations", po::value<int>()->default_value(-1),
       "passes of the low-pass filter, Q = orth(p_chi(L) Q) (-1: 2 when h varies by more than 10% on [0, lambda_K], else 1)")
      ("degree-h", po::value<int>()->default_value(30), "degree of p_h ~ sqrt(h)")
      ("eigencount-order", po::value<int>()->default_value(50), "degree of the eigencount filters")
      ("dichotomy-eps", po::value<double>()->default_value(1e-2, "0.01"), "relative width at which the lambda_K search stops")
      ("count-tolerance", po::value<double>()->default_value(2.0), "lambda_K search: accept counts within z sd below K (0: exact)")
      ("probes", po::value<int>()->default_value(-1), "probe columns of the eigencount (-1: 2 round(ln N))")
      ("seed", po::value<std::uint64_t>()->default_value(1), "random seed (draws keyed by node, not by rank)");
  po::options_description output("output");
  output.add_options()("out", po::value<std::string>(), "HDF5 output");
  desc.add(features).add(output);
}

namespace {
// Relative errors of Phi Phi^T against h(L); the embedding has K + r columns, so it is compared with both
// the best rank-K and the best rank-(K + r) approximations of h(L).
struct WaveletErrors {
  double spectral = 0, frobenius = 0, best_spectral = 0, best_frobenius = 0, best_spectral_kr = 0, best_frobenius_kr = 0;
  double frobenius_standard_error = 0;
  std::int64_t samples = 0;  // 0: dense
};
}  // namespace

int run_wavelet(const CommandContext& ctx) {
  const Communicator& comm = ctx.comm;
  const auto& vm = ctx.vm;
  GraphOptions graph_options;
  KernelSpec kernel;
  WaveletOptions options;
  std::string out_path, laplacian_kind;
  ReferenceOptions reference;
  collective_try(comm, [&] {
    reference = reference_options_from(vm);
    graph_options = graph_options_from(vm);
    kernel = kernel_spec_from(vm);
    if (vm.count("rank") && vm.count("embedding-dim"))
      throw InputError("--rank and --embedding-dim: --rank is the old name of --embedding-dim; give one of them");
    if (!vm.count("rank") && !vm.count("embedding-dim"))
      throw InputError("--embedding-dim: required (the embedding rank K)");
    options.rank = vm[vm.count("rank") ? "rank" : "embedding-dim"].as<std::int64_t>();
    options.oversample = vm["oversample"].as<std::int64_t>();
    options.degree_chi = vm["degree-chi"].as<int>();
    options.subspace_iterations = vm["subspace-iterations"].as<int>();
    options.degree_h = vm["degree-h"].as<int>();
    options.eigencount_order = vm["eigencount-order"].as<int>();
    options.dichotomy_eps = vm["dichotomy-eps"].as<double>();
    options.count_tolerance = vm["count-tolerance"].as<double>();
    options.n_probe = vm["probes"].as<int>();
    options.seed = vm["seed"].as<std::uint64_t>();
    laplacian_kind = vm["laplacian"].as<std::string>();
    if (laplacian_kind != "normalized" && laplacian_kind != "combinatorial")
      throw InputError("--laplacian: expected normalized or combinatorial (got '" + laplacian_kind + "')");
    if (vm.count("out")) out_path = vm["out"].as<std::string>();
  });
  const Log& log = ctx.log;
  if (vm.count("rank")) log.info("note        --rank is deprecated (it read like MPI ranks): use --embedding-dim");
  Timer total_timer, phase;
  PhaseTimes phases;
  const DistributedGraph g = load_graph_for_command(ctx, graph_options, out_path);
  phases.add("load", phase.seconds());
  options.progress = [&log](const std::string& line) { log.info(line); };
  const auto h = [&](double lambda) { return kernel_of_laplacian_eigenvalue(kernel, lambda); };
  Timer timer;
  const bool combinatorial = laplacian_kind == "combinatorial";
  const DistributedOperator laplacian = combinatorial ? combinatorial_laplacian_operator(g) : normalized_laplacian_operator(g);
  if (combinatorial) {
    // Gershgorin: the eigenvalues of D - A lie in [0, 2 max_i d_i].
    double max_degree = 0;
    for (const double d : g.degree) max_degree = std::max(max_degree, d);
    options.lambda_max = 2.0 * comm.max(max_degree);
  }
  const WaveletResult result = random_wavelet_features(laplacian, h, options);
  const double seconds = comm.max(timer.seconds());
  phases.add("embedding", seconds);
  phase.reset();
  log.info("wavelet     " + describe(kernel) + ": K = " + std::to_string(result.rank) + ", r = " +
           std::to_string(result.oversample) + ", lambda_K ~ " + fmt(result.lambda_k, 5) + " (" +
           std::to_string(result.dichotomy.iterations) + " dichotomy steps), " + fmt(seconds) + " s");

  WaveletErrors e;
  const bool dense = dense_reference(reference, g.n_global());
  if (reference.enabled) log.info("plan        reference " + reference_cost(reference, g.n_global()));
  if (reference.enabled && !dense) {
    Timer reference_timer;
    const auto sampled = sampled_embedding_error(g, laplacian, result.lambda_max, result.embedding_local, h,
                                                 reference.samples, options.seed);
    e.frobenius = sampled.frobenius.value;
    e.frobenius_standard_error = sampled.frobenius.standard_error;
    e.samples = sampled.frobenius.samples;
    log.info("reference   relative Frobenius error of Phi Phi^T (" + std::to_string(result.rank + result.oversample) +
             " columns: K + r) vs h(L): " + fmt(e.frobenius, 6) + " +- " + fmt(e.frobenius_standard_error, 6) +
             " (standard error; exact rows of h(L) for " + std::to_string(e.samples) + " of " + std::to_string(g.n_global()) +
             " nodes by Chebyshev degree " + std::to_string(sampled.degree) + ", " + fmt(comm.max(reference_timer.seconds()), 2) + " s)");
  }
  if (reference.enabled && dense) {
    // Exact h(L) and the best rank-K approximation from a dense eigendecomposition on rank 0.
    const Eigen::MatrixXd phi = gather_dense_block(comm, result.embedding_local, g.n_global());
    WalkOptions weights;  // normalised W, or A itself (raw, scale 1) for D - A
    if (combinatorial) weights.weights = WeightMode::raw;
    const Eigen::MatrixXd w = gather_dense_w(g, weights);
    if (comm.is_root()) {
      const Eigen::MatrixXd lap = combinatorial ? Eigen::MatrixXd(Eigen::MatrixXd(w.rowwise().sum().asDiagonal()) - w)
                                                : Eigen::MatrixXd(Eigen::MatrixXd::Identity(w.rows(), w.cols()) - w);
      Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(lap);
      Eigen::VectorXd hv = eig.eigenvalues().unaryExpr([&](double l) { return h(std::max(0.0, l)); });
      const Eigen::MatrixXd exact = eig.eigenvectors() * hv.asDiagonal() * eig.eigenvectors().transpose();
      const Eigen::MatrixXd diff = phi * phi.transpose() - exact;
      Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> diff_eig(diff, Eigen::EigenvaluesOnly);
      std::vector<double> sorted(hv.data(), hv.data() + hv.size());
      std::sort(sorted.rbegin(), sorted.rend());
      double all2 = 0;
      for (const double x : sorted) all2 += x * x;
      // Best rank-k errors of h(L) (Eckart-Young): the (k+1)-th eigenvalue, and the norm of the tail.
      const auto best = [&](std::int64_t k, double& spectral, double& frobenius) {
        double tail2 = 0;
        for (size_t j = static_cast<size_t>(std::min<std::int64_t>(k, static_cast<std::int64_t>(sorted.size()))); j < sorted.size(); ++j)
          tail2 += sorted[j] * sorted[j];
        spectral = static_cast<std::int64_t>(sorted.size()) > k ? sorted[static_cast<size_t>(k)] / sorted.front() : 0.0;
        frobenius = std::sqrt(tail2 / all2);
      };
      e.spectral = diff_eig.eigenvalues().cwiseAbs().maxCoeff() / sorted.front();
      e.frobenius = diff.norm() / exact.norm();
      best(result.rank, e.best_spectral, e.best_frobenius);
      best(result.rank + result.oversample, e.best_spectral_kr, e.best_frobenius_kr);
    }
    comm.broadcast(e);
    log.info("reference   relative error of Phi Phi^T (" + std::to_string(result.rank + result.oversample) +
             " columns: K + r) vs h(L): spectral " + fmt(e.spectral, 6) + " (best rank-K " + fmt(e.best_spectral, 6) +
             ", best rank-(K + r) " + fmt(e.best_spectral_kr, 6) + "), Frobenius " + fmt(e.frobenius, 6) + " (best rank-K " +
             fmt(e.best_frobenius, 6) + ", best rank-(K + r) " + fmt(e.best_frobenius_kr, 6) + ")");
  }
  if (reference.enabled) phases.add("reference", phase.seconds());
  std::ostringstream line;
  line << "nodes=" << g.n_global() << " embedding_dim=" << result.rank << " oversample=" << result.oversample
       << " lambda_k=" << result.lambda_k << " seconds=" << fmt(seconds, 4);
  if (reference.enabled && dense)
    line << " spectral_error=" << e.spectral << " best_spectral_error=" << e.best_spectral << " frobenius_error=" << e.frobenius
         << " best_frobenius_error=" << e.best_frobenius << " best_kr_spectral_error=" << e.best_spectral_kr
         << " best_kr_frobenius_error=" << e.best_frobenius_kr;
  if (reference.enabled && !dense)
    line << " frobenius_error=" << e.frobenius << " frobenius_error_se=" << e.frobenius_standard_error
         << " reference_samples=" << e.samples;
  log.result(line.str());

  phase.reset();
  if (!out_path.empty()) {
    log.info("writing     " + out_path);
    H5Output out(comm, out_path);
    out.write_provenance(ctx.command_line, comm.size(), ctx.config_text, options.seed);
    write_nodes(out, g);
    const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> rows = result.embedding_local;
    write_node_rows<double>(out, CanonicalOrder(g), "/embedding",
                            std::span<const double>(rows.data(), static_cast<size_t>(rows.size())),
                            {static_cast<std::uint64_t>(rows.cols())});
    out.write_replicated<double>("/spectrum/lambda_K", std::vector<double>{result.lambda_k});
    out.write_replicated<double>("/spectrum/coefficients_chi", result.coeff_chi);
    out.write_replicated<double>("/spectrum/coefficients_h", result.coeff_h);
    out.set_attribute("/spectrum", "kernel", describe(kernel));
    out.set_attribute("/spectrum", "laplacian", laplacian_kind);
    out.set_attribute("/spectrum", "rank", result.rank);
    out.set_attribute("/spectrum", "oversample", result.oversample);
    out.set_attribute("/spectrum", "subspace_iterations", static_cast<std::int64_t>(result.subspace_iterations));
    if (reference.enabled && dense) {
      out.set_attribute("/embedding", "relative_spectral_error", e.spectral);
      out.set_attribute("/embedding", "relative_frobenius_error", e.frobenius);
      out.set_attribute("/embedding", "best_rank_k_spectral_error", e.best_spectral);
      out.set_attribute("/embedding", "best_rank_k_frobenius_error", e.best_frobenius);
      out.set_attribute("/embedding", "best_rank_k_plus_r_spectral_error", e.best_spectral_kr);
      out.set_attribute("/embedding", "best_rank_k_plus_r_frobenius_error", e.best_frobenius_kr);
    }
    if (reference.enabled && !dense) {
      out.set_attribute("/embedding", "relative_frobenius_error", e.frobenius);
      out.set_attribute("/embedding", "relative_frobenius_error_standard_error", e.frobenius_standard_error);
      out.set_attribute("/embedding", "reference_samples", e.samples);
    }
    out.commit();
    log.info("wrote       " + out_path + " in " + fmt(phase.seconds(), 2) + " s");
    phases.add("write", phase.seconds());
  }
  log.info(phases.line(total_timer.seconds()));
  print_run_summary(log, comm, total_timer.seconds());
  return 0;
}

}  // namespace graphrf
