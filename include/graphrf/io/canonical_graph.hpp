#pragma once
// Stage 2 of loading: the undirected graph in canonical numbering, block-distributed over ranks.
// A node's canonical index is its position among all node ids in ascending order (formats that declare N
// number 1..N, isolated nodes included; string ids in ascending byte order, and their original id is then
// the canonical index), so it does not depend on the rank count or the partition.
// Arcs are symmetrised, repeated arcs merged by the duplicate policy, and u->v / v->u pairs combined
// (the larger weight is kept when they differ). Directed graphs keep arcs as given: row u holds u's out-arcs,
// repeated arcs merged by the duplicate policy, and the edge count is the arc count.
#include <cstdint>
#include <vector>

#include "graphrf/io/arc_input.hpp"
#include "graphrf/io/node_names.hpp"
#include "graphrf/mpi/block_distribution.hpp"
#include "graphrf/mpi/communicator.hpp"

namespace graphrf {

struct CanonicalGraph {
  BlockDistribution dist;                  // canonical index ranges per rank
  std::vector<std::int64_t> original_id;   // per owned node (string ids: the canonical index)
  NodeNames names;                         // string ids: per owned node, its name; GML with labels: its label; else empty
  std::vector<std::int64_t> row_ptr;       // n_local + 1
  std::vector<std::int64_t> col;           // canonical neighbour indices, ascending within a row
  std::vector<double> weight;
  std::int64_t n_edges_global = 0;         // undirected edges (directed: arcs), kept self-loops included
  LoadReport report;

  std::int64_t first(int rank) const { return dist.first(rank); }
  std::int64_t n_local(int rank) const { return dist.count(rank); }
};

CanonicalGraph assemble_canonical_graph(const Communicator& comm, ArcInput input, DuplicatePolicy duplicates,
                                        bool directed = false);

}  // namespace graphrf
