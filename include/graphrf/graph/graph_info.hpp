#pragma once
// One `info` run on a loaded graph: its statistics (graph_statistics.hpp), what the loader changed and how the
// partition came out, said as log lines and kept as a Report; write_graph_info writes the graph with them.
#include <string>

#include "graphrf/core/report.hpp"
#include "graphrf/graph/distributed_graph.hpp"
#include "graphrf/graph/graph_statistics.hpp"
#include "graphrf/io/h5_output.hpp"
#include "graphrf/mpi/log.hpp"

namespace graphrf {

// The values /graph holds: D^-1/2 A D^-1/2, A, or A with the attributes that read it as L = D - A.
enum class AdjacencyValues { normalized, raw, combinatorial };

struct GraphInfo {
  GraphStatistics statistics;
  double statistics_seconds = 0;  // rank 0's clock
  // nodes, edges, components, isolated, edge_cut, ranks, load_seconds, partition_seconds, distribute_seconds.
  Report report;
};

// Collective.
GraphInfo run_info(const DistributedGraph& g, const Log& log);

// /nodes, /graph with `values`, and the report's attributes of /graph. Collective.
void write_graph_info(H5Output& out, const DistributedGraph& g, const GraphInfo& info, AdjacencyValues values);

}  // namespace graphrf
