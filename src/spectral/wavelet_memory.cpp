#include "graphrf/spectral/wavelet_memory.hpp"

#include <algorithm>

#include "graphrf/mpi/log.hpp"

namespace graphrf {

namespace {
constexpr double kMiBytes = 1024.0 * 1024.0;
// A filter holds five panels at once (block, output, two recurrence panels, the output's copy); one more covers
// what the heap adds (panels round up to 2 MiB pages, and freed ones stay resident for reuse): measured peaks grew
// by 5.2-5.7 panels from K = 1 to K = 64 on grid:200x200 at np 1-3.
constexpr double kFilterPanels = 6;
constexpr double kMomentPanels = 3;        // probes and two recurrence panels
constexpr double kMomentSumColumns = 20;   // per-row sums of 10 steps (spectral_moments.cpp)

template <class V>
double bytes_of(const V& v) {
  return static_cast<double>(v.capacity() * sizeof(typename V::value_type));
}
}  // namespace

WaveletMemory estimate_wavelet_memory(const DistributedGraph& g, const WaveletOptions& features) {
  WaveletMemory m;
  const double rows = static_cast<double>(g.n_local()), arcs = static_cast<double>(g.col.size());
  const bool host_panels = g.hosts && g.hosts->size() > 1;
  // The Laplacian keeps each arc's source, and on a host of several ranks the same re-keyed to the host's rows.
  m.graph_bytes = bytes_of(g.original_id) + bytes_of(g.canonical_index) + bytes_of(g.row_ptr) + bytes_of(g.col) +
                  bytes_of(g.weight) + bytes_of(g.normalized_weight) + bytes_of(g.degree) + bytes_of(g.ghosts) +
                  bytes_of(g.ghost_degree) + 8 * arcs * (host_panels ? 2 : 1);
  double remote_ghosts = 0;
  for (const std::int64_t ghost : g.ghosts) remote_ghosts += !host_panels || !g.hosts->same_host(g.owner(ghost));
  const double b = static_cast<double>(features.rank + features.oversample), probes = static_cast<double>(features.n_probe);
  const double filter = 8 * (kFilterPanels * rows + remote_ghosts) * b;
  const double moments = 8 * ((kMomentPanels * rows + remote_ghosts) * probes + kMomentSumColumns * rows);
  m.panel_bytes = std::max(filter, moments);
  return m;
}

std::string describe_max(const Communicator& comm, const WaveletMemory& m) {
  return "graph " + fmt(comm.max(m.graph_bytes) / kMiBytes, 0) + " + panels " + fmt(comm.max(m.panel_bytes) / kMiBytes, 0) +
         " = " + fmt(comm.max(m.total()) / kMiBytes, 0) + " MiB";
}

}  // namespace graphrf
