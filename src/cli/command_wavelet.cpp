// `graphrf wavelet`: random wavelet features (de Bassompierre, Delvenne, Jacques 2026, Alg. 1) on the partitioned
// graph: node embeddings Phi with Phi Phi^T ~ h(L) for spectrally localised kernels h, the ones GRFs approximate
// poorly.
#include "graphrf/cli/commands.hpp"
#include "graphrf/core/timer.hpp"
#include "graphrf/io/h5_output.hpp"
#include "graphrf/io/report_output.hpp"
#include "graphrf/mpi/run_summary.hpp"
#include "graphrf/reference/wavelet_reference.hpp"
#include "graphrf/spectral/wavelet_output.hpp"

namespace graphrf {

namespace {

struct WaveletCommandOptions {
  GraphArguments graph;
  KernelArguments kernel;
  ReferenceOptions reference;
  WaveletOptions features;  // all but rank, bound
  std::optional<std::int64_t> embedding_dim, rank;
  std::string laplacian;
  std::optional<std::string> out;
};

void declare_wavelet_options(po::options_description& desc, WaveletCommandOptions& o) {
  add_graph_options(desc, o.graph);
  add_kernel_options(desc, o.kernel);
  add_reference_options(desc, o.reference, "h(L) and report the relative errors of Phi Phi^T (spectral and Frobenius when dense, "
                        "with the best rank-K and rank-(K + r) errors)");
  WaveletOptions& f = o.features;
  po::options_description features("features (random wavelet features)");
  features.add_options()
      ("embedding-dim,K", optional_value(&o.embedding_dim), "K: the rank of the embedding (required)")
      ("laplacian", po::value(&o.laplacian)->default_value("normalized"),
       "normalized: L = I - D^-1/2 A D^-1/2 (spectrum in [0, 2]) | combinatorial: L = D - A (PyGSP's default; "
       "spectrum in [0, 2 max degree])")
      ("rank", optional_value(&o.rank), "deprecated name of --embedding-dim (it read like a count of MPI ranks)")
      ("oversample", po::value(&f.oversample)->default_value(-1), "r extra columns (-1: max(K/10, 15))")
      ("degree-chi", po::value(&f.degree_chi)->default_value(60), "degree of the Jackson-Chebyshev low-pass p_chi")
      ("subspace-iterations", po::value(&f.subspace_iterations)->default_value(-1),
       "passes of the low-pass filter, Q = orth(p_chi(L) Q) (-1: 2 when h varies by more than 10% on [0, lambda_K], else 1)")
      ("degree-h", po::value(&f.degree_h)->default_value(30), "degree of p_h ~ sqrt(h)")
      ("eigencount-order", po::value(&f.eigencount_order)->default_value(50), "degree of the eigencount filters")
      ("dichotomy-eps", po::value(&f.dichotomy_eps)->default_value(1e-2, "0.01"), "relative width at which the lambda_K search stops")
      ("count-tolerance", po::value(&f.count_tolerance)->default_value(2.0), "lambda_K search: accept counts within z sd below K (0: exact)")
      ("probes", po::value(&f.n_probe)->default_value(-1), "probe columns of the eigencount (-1: 2 round(ln N))")
      ("seed", po::value(&f.seed)->default_value(1), "random seed (draws keyed by node, not by rank)");
  po::options_description output("output");
  output.add_options()("out", optional_value(&o.out), "HDF5 output");
  desc.add(features).add(output);
}

int run_wavelet_command(const CommandContext& ctx, WaveletCommandOptions& c) {
  const Communicator& comm = ctx.comm;
  GraphOptions graph_options;
  KernelSpec kernel;
  WaveletRunOptions options;
  std::string out_path;
  ReferenceOptions reference;
  collective_try(comm, [&] {
    reference = reference_options_from(c.reference);
    graph_options = graph_options_from(c.graph);
    kernel = kernel_spec_from(c.kernel);
    if (c.rank && c.embedding_dim)
      throw InputError("--rank and --embedding-dim: --rank is the old name of --embedding-dim; give one of them");
    if (!c.rank && !c.embedding_dim)
      throw InputError("--embedding-dim: required (the embedding rank K)");
    options.features = c.features;
    options.features.rank = c.rank ? *c.rank : *c.embedding_dim;
    options.laplacian = parse_wavelet_laplacian(c.laplacian);
    options.memory_limit = graph_options.memory_limit;
    if (c.out) out_path = *c.out;
  });
  options.kernel = [kernel](double lambda) { return kernel_of_laplacian_eigenvalue(kernel, lambda); };
  options.kernel_description = describe(kernel);
  const Log& log = ctx.log;
  if (c.rank) log.info("note        --rank is deprecated (it read like MPI ranks): use --embedding-dim");
  Timer total_timer, phase;
  PhaseTimes phases;
  const DistributedGraph g = load_graph_for_command(ctx, c.graph, graph_options, out_path);
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

}  // namespace

Command wavelet_command() {
  return make_command<WaveletCommandOptions>(
      "wavelet", "random wavelet features: spectral node embeddings by distributed Chebyshev filtering",
      declare_wavelet_options, run_wavelet_command);
}

}  // namespace graphrf
