#include "graphrf/spectral/wavelet_run.hpp"

#include "graphrf/core/error.hpp"
#include "graphrf/core/timer.hpp"
#include "graphrf/graph/graph_statistics.hpp"
#include "graphrf/graph/laplacian_operator.hpp"

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
  r.report.count("nodes", g.n_global())
      .count("embedding_dim", f.rank, {}, {{"/spectrum", "rank"}})
      .count("oversample", f.oversample, {}, {{"/spectrum", "oversample"}})
      .significant("lambda_k", f.lambda_k)
      .number("seconds", r.seconds, 4);
  return r;
}

}  // namespace graphrf
