#pragma once
// Partitioners: assign every node of the canonical graph to one of n_parts parts.
//   block     contiguous canonical index ranges balanced by (degree + 1)
//   metis     serial METIS on the graph gathered to rank 0, k-way (one bisection for 2 parts; 32-bit METIS: N
//             and 2|E| below 2^31; rank 0 holds the whole graph while it cuts: metis_root_bytes)
//   ptscotch  distributed PT-Scotch through its ParMETIS v3 API (no rank holds the whole graph)
//   file:PATH a precomputed assignment, one part id per line in canonical node order ('#' comments)
#include <optional>
#include <string>
#include <vector>

#include "graphrf/io/canonical_graph.hpp"
#include "graphrf/mpi/block_distribution.hpp"
#include "graphrf/mpi/communicator.hpp"

namespace graphrf {

// Returns the part of every node this rank owns in the canonical distribution. Collective. part_weights: the
// share of the work each part should get (METIS and PT-Scotch; empty: equal shares).
std::vector<int> compute_partition(const Communicator& comm, const CanonicalGraph& graph, const std::string& spec,
                                   int n_parts, const std::vector<double>& part_weights = {});

// Throws InputError naming --partition unless spec is a known partitioner.
void validate_partition_spec(const std::string& spec);

std::vector<int> partition_block(const Communicator& comm, const CanonicalGraph& graph, int n_parts);
std::vector<int> partition_metis(const Communicator& comm, const CanonicalGraph& graph, int n_parts,
                                 const std::vector<double>& part_weights = {});
// What rank 0 holds beyond its own share while METIS cuts a graph of `nodes` nodes and `arcs` arcs into two parts or
// more: the gathered graph in 64- and 32-bit form and METIS's coarsened copies of it, about 16 bytes per node and
// 88 per arc (rank 0's resident memory grew by 0.55-0.95 of this on random graphs and grids of 10^5 to 10^6 nodes
// cut into 2, 3 and 4 parts). One part: nothing is gathered.
double metis_root_bytes(std::int64_t nodes, std::int64_t arcs);
// Before partition_metis cuts into `parts`: says what rank 0 will hold (when `report`), and refuses a cut that rank 0
// cannot hold beside its share under the run's limit (memory_limit_per_rank of `memory_limit_option`) before
// anything is gathered, rather than leaving it to the kernel's OOM killer. Nothing for one part. Collective.
void check_metis_fits(const Communicator& comm, const CanonicalGraph& graph, int parts, std::uint64_t memory_limit_option,
                      bool report);
std::vector<int> partition_ptscotch(const Communicator& comm, const CanonicalGraph& graph, int n_parts,
                                    const std::vector<double>& part_weights = {});
// What a rank holds beyond its share while PT-Scotch cuts: 4 MiB, 48 bytes per arc of its rows and 400 per node of
// other ranks they reach (its halo, bounded here by min(arcs to other ranks, nodes of other ranks) so that no sort
// is needed). Measured growth per rank was 0.46-0.90 of it on random graphs of 5 x 10^3 to 10^6 nodes and grids at
// np 2 and 4 (tests/bench/README.md); on expanders the halo, not the rank's share, dominates, so adding ranks
// barely shrinks it.
double ptscotch_rank_bytes(std::int64_t local_arcs, std::int64_t halo_bound);
// Before partition_ptscotch cuts into `parts`: says what the largest rank will hold (when `report`), and refuses a
// cut that does not fit beside the ranks' shares under the run's limit before PT-Scotch is called. Nothing for one
// part. Collective.
void check_ptscotch_fits(const Communicator& comm, const CanonicalGraph& graph, int parts, std::uint64_t memory_limit_option,
                         bool report);
// Splits each group of nodes (group[i]: the group of owned node i) into the consecutive parts
// first_part[g] .. first_part[g + 1] - 1, as contiguous runs in canonical order balanced by (degree + 1): the
// ranks of a host share its nodes for balance only. Collective.
std::vector<int> split_within_groups(const Communicator& comm, const CanonicalGraph& graph, const std::vector<int>& group,
                                    const std::vector<int>& first_part);
std::vector<int> partition_from_file(const Communicator& comm, const CanonicalGraph& graph, const std::string& path,
                                     int n_parts);

// The canonical index range of every part when the parts are contiguous runs in canonical order, part 0 first
// (block partitions, the ranks of one host splitting its nodes): then a node's new index is its canonical
// index and its part follows from the index alone. Empty otherwise. Collective.
std::optional<BlockDistribution> contiguous_parts(const Communicator& comm, const std::vector<int>& part, int n_parts);

// Edge cut (undirected edges whose ends lie in different parts) and balance (largest part / mean part size).
struct PartitionQuality {
  std::int64_t edge_cut = 0;
  std::int64_t host_edge_cut = -1;  // edges between hosts when ranks share hosts (-1: every rank its own host)
  double node_balance = 1.0;
  double arc_balance = 1.0;
};
PartitionQuality partition_quality(const Communicator& comm, const CanonicalGraph& graph, const std::vector<int>& part,
                                   int n_parts);

}  // namespace graphrf
