#include "graphrf/spectral/wavelet_run.hpp"

#include "graphrf/core/error.hpp"
#include "graphrf/core/memory_size.hpp"
#include "graphrf/core/timer.hpp"
#include "graphrf/graph/graph_statistics.hpp"
#include "graphrf/graph/laplacian_operator.hpp"
#include "graphrf/mpi/memory_limit.hpp"
#include "graphrf/mpi/run_summary.hpp"
#include "graphrf/spectral/wavelet_memory.hpp"

namespace graphrf {

WaveletLaplacian parse_wavelet_laplacian(const std::string& name) {
  if (name == "normalized") return WaveletLaplacian::normalized;
  if (name == "combinatorial") return WaveletLaplacian::combinatorial;
  throw InputError("--laplacian: expected normalized or combinatorial (got '" + name + "')");
}

const char* wavelet_laplacian_name(WaveletLaplacian laplacian) {
  return laplacian == WaveletLaplacian::combinatorial ? "combinatorial" : "normalized";
}

DistributedOperator wavelet_laplacian_operator(const DistributedGraph& g, WaveletLaplacian laplacian) {
  return laplacian == WaveletLaplacian::combinatorial ? combinatorial_laplacian_operator(g) : normalized_laplacian_operator(g);
}

WaveletRunResult run_wavelet(const DistributedGraph& g, const WaveletRunOptions& options, const Log& log) {
  const Communicator& comm = *g.comm;
  WaveletOptions features = options.features;
  features.progress = [&log](const std::string& line) { log.info(line); };
  WaveletOptions resolved;
  collective_try(comm, [&] { resolved = resolve_wavelet_options(g.n_global(), features); });
  const WaveletMemory estimate = estimate_wavelet_memory(g, resolved);
  const std::string columns = "K + r = " + std::to_string(resolved.rank + resolved.oversample) + " columns";
  const double need = announce_memory_estimate(
      comm, log, estimate.parts(), "filters of " + columns + ", " + std::to_string(resolved.n_probe) + " probes",
      options.memory_limit, "random wavelet features (" + columns + ")");
  Timer timer;
  const DistributedOperator laplacian = wavelet_laplacian_operator(g, options.laplacian);
  // Gershgorin: the eigenvalues of D - A lie in [0, 2 max_i d_i].
  if (options.laplacian == WaveletLaplacian::combinatorial) features.lambda_max = 2.0 * max_weighted_degree(g);
  WaveletRunResult r;
  r.features = random_wavelet_features(laplacian, options.kernel, features);
  r.seconds = comm.max(timer.seconds());
  const WaveletResult& f = r.features;
  log.info("wavelet     " + options.kernel_description + ": K = " + std::to_string(f.rank) + ", r = " +
           std::to_string(f.oversample) + ", lambda_K ~ " + fmt(f.lambda_k, 5) + " (" +
           std::to_string(f.dichotomy.iterations) + " dichotomy steps), " + fmt(r.seconds) + " s");
  // Against the estimate: the host's shared panels count once per host (own_peak_memory_mib).
  const double peak_mib = comm.max(own_peak_memory_mib()), estimate_mib = need / kMiB;
  log.info("memory      " + describe_peak(peak_mib, estimate_mib));
  r.report.count("nodes", g.n_global())
      .count("embedding_dim", f.rank, {}, {{"/spectrum", "rank"}})
      .count("oversample", f.oversample, {}, {{"/spectrum", "oversample"}})
      .significant("lambda_k", f.lambda_k)
      .number("seconds", r.seconds, 4)
      .number("memory_estimate_mib", estimate_mib, 1)
      .number("peak_mib", peak_mib, 1);
  return r;
}

}  // namespace graphrf
