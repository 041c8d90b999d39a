#pragma once
// One `wavelet` run on a loaded graph: random wavelet features (random_wavelet_features.hpp) of the normalised or
// combinatorial Laplacian for a kernel h, said as a log line and kept as a Report; write_wavelet_result
// (wavelet_output.hpp) writes it. A --reference check runs above this module (reference/wavelet_reference.hpp).
#include <cstdint>
#include <functional>
#include <string>

#include "graphrf/core/report.hpp"
#include "graphrf/graph/distributed_graph.hpp"
#include "graphrf/mpi/distributed_operator.hpp"
#include "graphrf/mpi/log.hpp"
#include "graphrf/spectral/random_wavelet_features.hpp"

namespace graphrf {

enum class WaveletLaplacian { normalized, combinatorial };
WaveletLaplacian parse_wavelet_laplacian(const std::string& name);  // InputError naming --laplacian
const char* wavelet_laplacian_name(WaveletLaplacian laplacian);
// L = I - D^-1/2 A D^-1/2 (spectrum in [0, 2]) or L = D - A.
DistributedOperator wavelet_laplacian_operator(const DistributedGraph& g, WaveletLaplacian laplacian);

struct WaveletRunOptions {
  std::function<double(double)> kernel;  // h(lambda) on the eigenvalues of L
  std::string kernel_description;        // said in the log and written as /spectrum's `kernel`
  WaveletLaplacian laplacian = WaveletLaplacian::normalized;
  WaveletOptions features;  // lambda_max is set from the Laplacian
  // Bytes per rank the run may use (0: the node's available memory over its ranks); refused before filtering
  // when the estimate (wavelet_memory.hpp) exceeds it.
  std::uint64_t memory_limit = 0;
};

struct WaveletRunResult {
  WaveletResult features;
  double seconds = 0;  // the embedding, slowest rank
  // nodes, embedding_dim, oversample, lambda_k, seconds, memory_estimate_mib, peak_mib.
  Report report;
};

// Collective.
WaveletRunResult run_wavelet(const DistributedGraph& g, const WaveletRunOptions& options, const Log& log);

}  // namespace graphrf
