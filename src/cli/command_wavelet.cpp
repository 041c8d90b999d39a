// `graphrf wavelet`: random wavelet features (de Bassompierre, Delvenne, Jacques 2026, Alg. 1) on the partitioned
// graph: node embeddings Phi with Phi Phi^T ~ h(L) for spectrally localised kernels h, the ones GRFs approximate
// poorly.
#include "graphrf/cli/cli.hpp"
#include "graphrf/core/timer.hpp"
#include "graphrf/io/h5_output.hpp"
#include "graphrf/io/report_output.hpp"
#include "graphrf/mpi/run_summary.hpp"
#include "graphrf/reference/wavelet_reference.hpp"
#include "graphrf/spectral/wavelet_output.hpp"

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

int run_wavelet(const CommandContext& ctx) {
  const Communicator& comm = ctx.comm;
  const auto& vm = ctx.vm;
  GraphOptions graph_options;
  KernelSpec kernel;
  WaveletRunOptions options;
  std::string out_path;
  ReferenceOptions reference;
  collective_try(comm, [&] {
    reference = reference_options_from(vm);
    graph_options = graph_options_from(vm);
    kernel = kernel_spec_from(vm);
    if (vm.count("rank") && vm.count("embedding-dim"))
      throw InputError("--rank and --embedding-dim: --rank is the old name of --embedding-dim; give one of them");
    if (!vm.count("rank") && !vm.count("embedding-dim"))
      throw InputError("--embedding-dim: required (the embedding rank K)");
    WaveletOptions& features = options.features;
    features.rank = vm[vm.count("rank") ? "rank" : "embedding-dim"].as<std::int64_t>();
    features.oversample = vm["oversample"].as<std::int64_t>();
    features.degree_chi = vm["degree-chi"].as<int>();
    features.subspace_iterations = vm["subspace-iterations"].as<int>();
    features.degree_h = vm["degree-h"].as<int>();
    features.eigencount_order = vm["eigencount-order"].as<int>();
    features.dichotomy_eps = vm["dichotomy-eps"].as<double>();
    features.count_tolerance = vm["count-tolerance"].as<double>();
    features.n_probe = vm["probes"].as<int>();
    features.seed = vm["seed"].as<std::uint64_t>();
    options.laplacian = parse_wavelet_laplacian(vm["laplacian"].as<std::string>());
    if (vm.count("out")) out_path = vm["out"].as<std::string>();
  });
  options.kernel = [kernel](double lambda) { return kernel_of_laplacian_eigenvalue(kernel, lambda); };
  options.kernel_description = describe(kernel);
  const Log& log = ctx.log;
  if (vm.count("rank")) log.info("note        --rank is deprecated (it read like MPI ranks): use --embedding-dim");
  Timer total_timer, phase;
  PhaseTimes phases;
  const DistributedGraph g = load_graph_for_command(ctx, graph_options, out_path);
  phases.add("load", phase.seconds());
  const WaveletRunResult result = run_wavelet(g, options, log);
  phases.add("embedding", result.seconds);
  Report report = result.report, checked;
  phase.reset();
  if (reference.enabled) {
    checked = wavelet_reference(g, result, options, reference, log);
    report.append(checked);
    phases.add("reference", phase.seconds());
  }
  print_report(log, report);

  phase.reset();
  if (!out_path.empty()) {
    log.info("writing     " + out_path);
    H5Output out(comm, out_path);
    out.write_provenance(ctx.command_line, comm.size(), ctx.config_text, options.features.seed);
    write_wavelet_result(out, g, result, options);
    write_report(out, checked);
    out.commit();
    log.info("wrote       " + out_path + " in " + fmt(phase.seconds(), 2) + " s");
    phases.add("write", phase.seconds());
  }
  log.info(phases.line(total_timer.seconds()));
  print_run_summary(log, comm, total_timer.seconds());
  return 0;
}

}  // namespace graphrf
