#pragma once
// The partitioned graph as each rank holds it: after partitioning, nodes are relabelled so that every rank
// owns one contiguous range of global indices (owner lookup O(log P)); the rank keeps a CSR of its owned
// rows (global neighbour indices and weights), the ghosts it borrows, their degrees, and the symmetric
// normalisation W_ij = a_ij / sqrt(d_i d_j). Neighbours within a row are ordered by canonical index (the
// node's position among all ids in ascending order), which is the same for every rank count and partition,
// so "the k-th neighbour of v" names the same node everywhere.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "graphrf/mpi/block_distribution.hpp"
#include "graphrf/io/canonical_graph.hpp"
#include "graphrf/mpi/communicator.hpp"
#include "graphrf/mpi/ghost_exchange.hpp"
#include "graphrf/mpi/host_topology.hpp"
#include "graphrf/io/graph_options.hpp"
#include "graphrf/io/load_report.hpp"
#include "graphrf/partition/partitioner.hpp"

namespace graphrf {

struct DistributedGraph {
  const Communicator* comm = nullptr;
  // Which ranks share memory (host_topology.hpp); null: every rank is its own host.
  std::shared_ptr<const HostTopology> hosts;
  BlockDistribution dist;                      // owned global index range of each rank
  std::int64_t n_edges_global = 0;             // undirected edges (kept self-loops included)
  std::int64_t n_arcs_global = 0;              // entries of all ranks' rows (col.size() summed)
  // Walks read the whole graph on every host (GraphOptions::replicate_graph): set by the loaders.
  bool replicate_walk_table = false;
  // Whether walks on this graph use a replicated table: asked for, and the run has several hosts (one host's table
  // covers the whole graph anyway).
  bool replicates_walks() const;
  std::vector<std::int64_t> original_id;       // per owned node: id in the input (string ids: canonical index)
  // String ids (or GML node labels): node names in canonical order, one consecutive block per rank in rank
  // order (the loader's blocks, not the owned rows): rank r holds the names of canonical indices
  // exscan(sizes) .. + names.size().
  NodeNames names;
  std::vector<std::int64_t> canonical_index;   // per owned node
  std::vector<std::int64_t> row_ptr;           // n_local + 1
  std::vector<std::int64_t> col;               // global indices of neighbours
  std::vector<double> weight;                  // a_ij
  std::vector<double> normalized_weight;       // a_ij / sqrt(d_i d_j)
  std::vector<double> degree;                  // weighted degree d_i of owned nodes
  std::vector<std::int64_t> ghosts;            // sorted global indices of borrowed nodes
  std::vector<double> ghost_degree;            // d_j of each ghost
  GhostExchange ghost_exchange;
  LoadReport report;
  std::string partitioner;
  PartitionQuality quality;

  std::int64_t n_global() const { return dist.total(); }
  std::int64_t first() const { return dist.first(comm->rank()); }
  std::int64_t n_local() const { return dist.count(comm->rank()); }
  bool owns(std::int64_t global) const { return global >= first() && global < first() + n_local(); }
  int owner(std::int64_t global) const { return dist.owner(global); }
  std::int64_t n_neighbours(std::int64_t local) const {
    return row_ptr[static_cast<size_t>(local) + 1] - row_ptr[static_cast<size_t>(local)];
  }
  // Position of a ghost in `ghosts` (binary search); -1 if not a ghost.
  std::int64_t ghost_slot(std::int64_t global) const;
  // Where each arc's neighbour lives: >= 0 its owned local row, < 0 its ghost slot (-1 - slot). For loops over
  // every arc: one radix sort, not a binary search per arc.
  std::vector<std::int64_t> arc_sources() const;
  // Bytes this rank's arrays hold (their capacities): the graph's share in the memory estimates of runs.
  double array_bytes() const;
  // The shares of this rank's arcs that lead to another rank's node and to another host's node, and the nodes of
  // other hosts: how much of what walks from here visit lies elsewhere, for the memory estimates of runs.
  struct LeavingArcs {
    double other_rank = 0, other_host = 0;
  };
  LeavingArcs leaving_arc_shares() const;
  std::int64_t nodes_on_other_hosts() const;
};

// Relabels the canonical graph by `part` (one part per rank) and moves every row to its owner. Collective.
DistributedGraph distribute_graph(const Communicator& comm, CanonicalGraph graph, const std::vector<int>& part);

// With walks replicated: this rank's share of its host's copy of the whole graph's walk table (walk_arcs.hpp: 32 B
// an arc, 16 B a node, at least: weighted steps and combinatorial weights add more), checked with the graph's own
// arrays against the run's memory limit (memory_limit_per_rank of `memory_limit_option`) before any of it is
// built. Collective. replica_bytes_if_replicated: the same share whether or not this run replicates (0 with one
// rank), for the hint to replicate.
double replica_bytes_per_rank(const DistributedGraph& g);
double replica_bytes_if_replicated(const DistributedGraph& g);
void check_replica_fits(const DistributedGraph& g, std::uint64_t memory_limit_option);

// One line for logs: source, nodes, edges, partitioner and rank count.
std::string graph_summary(const DistributedGraph& g);

// Finds the hosts (host_size: see GraphOptions), partitions a canonical graph by `partition` (block | metis |
// ptscotch | file:PATH; METIS and PT-Scotch cut between hosts, ranks of a host split its nodes for balance) and
// distributes it. Collective. report_steps: say on rank 0 when partitioning starts and ends (large graphs).
// memory_limit_option: --memory-limit in bytes per rank (0: the node's share), against which the whole graph that
// METIS needs on rank 0 is checked before it is gathered.
DistributedGraph partition_and_distribute(const Communicator& comm, CanonicalGraph canonical, const std::string& partition,
                                          int host_size = 0, bool report_steps = false,
                                          std::uint64_t memory_limit_option = 0);

// The whole pipeline: read or generate, assemble, partition, distribute. Collective.
DistributedGraph load_graph(const Communicator& comm, const GraphOptions& options);

}  // namespace graphrf
