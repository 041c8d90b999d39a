#pragma once
// Memory per rank of a `wavelet` run, said before it starts and compared with the measured peak after: this rank's
// share of the graph (with the Laplacian operator's per-arc sources) and the dense panels of the filters. A
// Chebyshev filter of b = K + r columns holds the block it filters, its accumulated output, the recurrence's two
// panels and the output's column-major copy: five n_local x b panels (six are counted); the eigencount's moments hold the probes, the
// two recurrence panels and 20 columns of per-row sums (n_probe columns). Ghost rows from other hosts (all ghosts
// when every rank is its own host) arrive in one more array of the panel's width.
#include <array>

#include "graphrf/core/memory_size.hpp"

#include "graphrf/graph/distributed_graph.hpp"
#include "graphrf/spectral/random_wavelet_features.hpp"

namespace graphrf {

struct WaveletMemory {
  double graph_bytes = 0, panel_bytes = 0;
  double total() const { return graph_bytes + panel_bytes; }
  std::array<MemoryPart, 2> parts() const { return {{{"graph", graph_bytes}, {"panels", panel_bytes}}}; }
};

// `features`: resolved options (resolve_wavelet_options), so that K + r and the probe count are known.
WaveletMemory estimate_wavelet_memory(const DistributedGraph& g, const WaveletOptions& features);

}  // namespace graphrf
