// Serial METIS partitioning (k-way; one bisection for two parts) of the graph gathered on rank 0. METIS here uses
// 32-bit idx_t, so the graph must have fewer than 2^31 nodes and arcs; rank 0 needs the whole CSR in memory. For
// bigger graphs use --partition ptscotch.
#include <metis.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <climits>

#include "graphrf/core/memory_size.hpp"
#include "graphrf/mpi/memory_limit.hpp"
#include "graphrf/mpi/phase_progress.hpp"
#include "graphrf/partition/partitioner.hpp"

namespace graphrf {

namespace {

// The whole graph gathered on rank 0 and cut there: every node's part on rank 0, nothing on the other ranks.
std::vector<int> cut_on_root(const Communicator& comm, const CanonicalGraph& graph, int n_parts,
                             const std::vector<double>& part_weights) {
  const int rank = comm.rank();
  const auto n_local = static_cast<size_t>(graph.n_local(rank));
  const std::int64_t n = graph.dist.total();
  // Self-loops are not allowed by METIS: drop them from the gathered copy.
  std::vector<std::int64_t> degree(n_local);
  std::vector<std::int64_t> adjacency;
  const std::int64_t first = graph.first(rank);
  for (size_t i = 0; i < n_local; ++i) {
    for (auto k = graph.row_ptr[i]; k < graph.row_ptr[i + 1]; ++k) {
      const auto v = graph.col[static_cast<size_t>(k)];
      if (v != first + static_cast<std::int64_t>(i)) adjacency.push_back(v);
    }
    degree[i] = static_cast<std::int64_t>(adjacency.size());
  }
  for (size_t i = n_local; i-- > 1;) degree[i] -= degree[i - 1];
  const std::int64_t arcs = comm.sum(static_cast<std::int64_t>(adjacency.size()));
  collective_try(comm, [&] {
    if (n >= INT_MAX || arcs >= INT_MAX)
      throw InputError("--partition metis: graph too large for serial 32-bit METIS (" + std::to_string(n) + " nodes, " +
                       std::to_string(arcs) + " arcs; limit 2^31-1): use --partition ptscotch");
  });
  const auto p = static_cast<size_t>(comm.size());
  Counts to_root(p, 0);
  to_root[0] = static_cast<std::int64_t>(n_local);
  const auto all_degrees = comm.alltoallv(degree, to_root);
  to_root[0] = static_cast<std::int64_t>(adjacency.size());
  const auto all_adjacency = comm.alltoallv(adjacency, to_root);

  std::vector<int> all_parts;
  collective_try(comm, [&] {
    if (rank != 0) return;
    all_parts.assign(static_cast<size_t>(n), 0);
    std::vector<idx_t> xadj(static_cast<size_t>(n) + 1, 0), adjncy(all_adjacency.begin(), all_adjacency.end());
    for (size_t i = 0; i < static_cast<size_t>(n); ++i) xadj[i + 1] = xadj[i] + static_cast<idx_t>(all_degrees[i]);
    idx_t nvtxs = static_cast<idx_t>(n), ncon = 1, nparts = n_parts, objval = 0;
    std::vector<idx_t> result(static_cast<size_t>(n), 0);
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_SEED] = 1;  // deterministic for a given graph and part count
    std::vector<real_t> tpwgts(part_weights.begin(), part_weights.end());
    // Two parts (two hosts) by one multilevel bisection: the k-way scheme coarsens only to n/20 nodes, bisects
    // that graph recursively and then refines k-way, which on expanders doubles the time (random:1000000:10:
    // 7.2 s against 3.9 s) for a cut within 1% (and nodes balanced to 3% rather than 0.1%). More parts are cut
    // k-way: bisection cut grids and meshes up to 24% worse at 3 and 4 parts (tests/bench/README.md).
    const bool bisect = nparts == 2;
    const int status = (bisect ? METIS_PartGraphRecursive : METIS_PartGraphKway)(
        &nvtxs, &ncon, xadj.data(), adjncy.data(), nullptr, nullptr, nullptr, &nparts,
        tpwgts.empty() ? nullptr : tpwgts.data(), nullptr, options, &objval, result.data());
    if (status != METIS_OK)
      throw Error(std::string(bisect ? "METIS_PartGraphRecursive" : "METIS_PartGraphKway") + " failed with status " +
                  std::to_string(status) + (status == METIS_ERROR_MEMORY ? " (out of memory)" : ""));
    all_parts.assign(result.begin(), result.end());
  });
  return all_parts;
}

}  // namespace

double metis_root_bytes(std::int64_t nodes, std::int64_t arcs) {
  return 16.0 * static_cast<double>(nodes) + 88.0 * static_cast<double>(arcs);
}

void check_metis_fits(const Communicator& comm, const CanonicalGraph& graph, int parts, std::uint64_t memory_limit_option,
                      bool report) {
  if (parts < 2) return;
  const std::int64_t arcs = comm.sum(static_cast<std::int64_t>(graph.col.size()));
  const double gathered = metis_root_bytes(graph.dist.total(), arcs);
  phase_note("loading     metis holds the whole graph on rank 0 while it cuts: about " + format_bytes(gathered) + " there",
             report);
  // Each rank holds its share of the canonical graph meanwhile (row pointers and ids; columns and weights).
  const double own = 16.0 * static_cast<double>(graph.row_ptr.size()) + 16.0 * static_cast<double>(graph.col.size());
  check_memory_fits(comm, own + (comm.is_root() ? gathered : 0.0), memory_limit_per_rank(comm, memory_limit_option),
                    "--partition metis (serial METIS holds the whole graph on rank 0; --partition ptscotch cuts it "
                    "in parallel, block does not cut)");
}

std::vector<int> partition_metis(const Communicator& comm, const CanonicalGraph& graph, int n_parts,
                                 const std::vector<double>& part_weights) {
  // One part needs no cut, nor the whole graph on rank 0.
  if (n_parts == 1) return std::vector<int>(static_cast<size_t>(graph.n_local(comm.rank())), 0);
  const std::vector<int> all_parts = cut_on_root(comm, graph, n_parts, part_weights);
#if defined(__GLIBC__)
  // Rank 0's copy of the whole graph and METIS's work arrays are free now, but the executable keeps freed memory
  // in its heap for reuse (reuse_freed_memory.hpp), so rank 0 would hold them for the whole run (random:1000000:10
  // at np 2: 1102 MiB against 529 MiB on rank 1 through the walks). They go back to the kernel here.
  if (comm.rank() == 0) malloc_trim(0);
#endif
  // Scatter back: rank r receives its canonical block.
  const auto p = static_cast<size_t>(comm.size());
  Counts from_root(p, 0);
  if (comm.rank() == 0)
    for (size_t r = 0; r < p; ++r) from_root[r] = graph.dist.count(static_cast<int>(r));
  return comm.alltoallv(all_parts, from_root);
}

}  // namespace graphrf
