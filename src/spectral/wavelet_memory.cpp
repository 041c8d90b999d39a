#include "graphrf/spectral/wavelet_memory.hpp"

#include <algorithm>

namespace graphrf {

namespace {
// A filter holds five panels at once (block, output, two recurrence panels, the output's copy); one more covers
// what the heap adds (panels round up to 2 MiB pages, and freed ones stay resident for reuse): measured peaks grew
// by 5.2-5.7 panels from K = 1 to K = 64 on grid:200x200 at np 1-3.
constexpr double kFilterPanels = 6;
constexpr double kMomentPanels = 3;        // probes and two recurrence panels
constexpr double kMomentSumColumns = 20;   // per-row sums of 10 steps (spectral_moments.cpp)
}  // namespace

WaveletMemory estimate_wavelet_memory(const DistributedGraph& g, const WaveletOptions& features) {
  WaveletMemory m;
  const double rows = static_cast<double>(g.n_local()), arcs = static_cast<double>(g.col.size());
  const bool host_panels = g.hosts && g.hosts->size() > 1;
  // The Laplacian keeps each arc's source, and on a host of several ranks the same re-keyed to the host's rows.
  m.graph_bytes = g.array_bytes() + 8 * arcs * (host_panels ? 2 : 1);
  double remote_ghosts = 0;
  for (const std::int64_t ghost : g.ghosts) remote_ghosts += !host_panels || !g.hosts->same_host(g.owner(ghost));
  const double b = static_cast<double>(features.rank + features.oversample), probes = static_cast<double>(features.n_probe);
  const double filter = 8 * (kFilterPanels * rows + remote_ghosts) * b;
  const double moments = 8 * ((kMomentPanels * rows + remote_ghosts) * probes + kMomentSumColumns * rows);
  m.panel_bytes = std::max(filter, moments);
  return m;
}

}  // namespace graphrf
