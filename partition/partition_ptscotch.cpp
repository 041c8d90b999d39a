// Distributed partitioning with PT-Scotch through its ParMETIS v3 compatible API: every rank passes only
// its own rows. PT-Scotch's ParMETIS_V3_PartKway reports edgecut 0, so the cut is computed by
// partition_quality instead.
#include "graphrf/partition/partitioner.hpp"

#include <algorithm>

#include "graphrf/core/memory_size.hpp"
#include "graphrf/mpi/memory_limit.hpp"
#include "graphrf/mpi/phase_progress.hpp"

#ifdef GRAPHRF_HAVE_PTSCOTCH
#include <parmetis.h>

#include <climits>
#endif

namespace graphrf {

double ptscotch_rank_bytes(std::int64_t local_arcs, std::int64_t halo_bound) {
  return 4.0 * 1024 * 1024 + 48.0 * static_cast<double>(local_arcs) + 400.0 * static_cast<double>(halo_bound);
}

void check_ptscotch_fits(const Communicator& comm, const CanonicalGraph& graph, int parts, std::uint64_t memory_limit_option,
                         bool report) {
  if (parts < 2) return;
  const int rank = comm.rank();
  const std::int64_t first = graph.first(rank), end = first + graph.n_local(rank);
  const auto remote_arcs = static_cast<std::int64_t>(
      std::count_if(graph.col.begin(), graph.col.end(), [&](std::int64_t v) { return v < first || v >= end; }));
  const double cut = ptscotch_rank_bytes(static_cast<std::int64_t>(graph.col.size()),
                                         std::min(remote_arcs, graph.dist.total() - graph.n_local(rank)));
  phase_note("loading     ptscotch holds its copy of each rank's rows and their halo while it cuts: about " +
                 format_bytes(comm.max(cut)) + " a rank at most",
             report);
  // Each rank holds its share of the canonical graph meanwhile (row pointers and ids; columns and weights).
  const double own = 16.0 * static_cast<double>(graph.row_ptr.size()) + 16.0 * static_cast<double>(graph.col.size());
  check_memory_fits(comm, own + cut, memory_limit_per_rank(comm, memory_limit_option),
                    "--partition ptscotch (PT-Scotch's copy of each rank's rows and of the nodes they reach on other "
                    "ranks; block does not cut)");
}

std::vector<int> partition_ptscotch(const Communicator& comm, const CanonicalGraph& graph, int n_parts,
                                    const std::vector<double>& part_weights) {
#ifndef GRAPHRF_HAVE_PTSCOTCH
  (void)graph;
  (void)n_parts;
  (void)part_weights;
  collective_try(comm, [] { throw InputError("--partition ptscotch: graphrf was built without PT-Scotch"); });
  return {};
#else
  const int rank = comm.rank();
  const auto n_local = static_cast<size_t>(graph.n_local(rank));
  const std::int64_t n = graph.dist.total();
  const std::int64_t arcs = comm.sum(static_cast<std::int64_t>(graph.col.size()));
  const std::int64_t smallest = comm.min(static_cast<std::int64_t>(n_local));
  collective_try(comm, [&] {
    if (n >= INT_MAX || arcs >= INT_MAX)
      throw InputError("--partition ptscotch: this PT-Scotch build uses 32-bit integers; the graph has " +
                       std::to_string(n) + " nodes and " + std::to_string(arcs) + " arcs");
    if (smallest == 0)
      throw InputError("--partition ptscotch: some rank holds no node (" + std::to_string(n) + " nodes on " +
                       std::to_string(comm.size()) + " ranks): use fewer ranks or --partition metis");
  });
  if (n_parts == 1) return std::vector<int>(n_local, 0);
  std::vector<SCOTCH_Num> vtxdist(graph.dist.offsets().begin(), graph.dist.offsets().end());
  std::vector<SCOTCH_Num> xadj(n_local + 1, 0), adjncy;
  const std::int64_t first = graph.first(rank);
  for (size_t i = 0; i < n_local; ++i) {
    for (auto k = graph.row_ptr[i]; k < graph.row_ptr[i + 1]; ++k) {
      const auto v = graph.col[static_cast<size_t>(k)];
      if (v != first + static_cast<std::int64_t>(i)) adjncy.push_back(static_cast<SCOTCH_Num>(v));  // no self-loops
    }
    xadj[i + 1] = static_cast<SCOTCH_Num>(adjncy.size());
  }
  if (adjncy.empty()) adjncy.push_back(0);  // some MPI/Scotch paths dislike null buffers
  SCOTCH_Num wgtflag = 0, numflag = 0, ncon = 1, nparts = n_parts, edgecut = 0;
  std::vector<float> tpwgts(static_cast<size_t>(n_parts), static_cast<float>(1.0 / n_parts));
  if (!part_weights.empty()) tpwgts.assign(part_weights.begin(), part_weights.end());
  float ubvec = static_cast<float>(1.05);
  SCOTCH_Num options[3] = {1, 0, 1};  // use options; no debug output; fixed seed 1
  std::vector<SCOTCH_Num> part(n_local == 0 ? 1 : n_local, 0);
  MPI_Comm mpi_comm = comm.get();
  const int status = ParMETIS_V3_PartKway(vtxdist.data(), xadj.data(), adjncy.data(), nullptr, nullptr, &wgtflag,
                                          &numflag, &ncon, &nparts, tpwgts.data(), &ubvec, options, &edgecut,
                                          part.data(), &mpi_comm);
  collective_try(comm, [&] {
    if (status != METIS_OK) throw Error("PT-Scotch ParMETIS_V3_PartKway failed with status " + std::to_string(status));
  });
  return std::vector<int>(part.begin(), part.begin() + static_cast<std::ptrdiff_t>(n_local));
#endif
}

}  // namespace graphrf
