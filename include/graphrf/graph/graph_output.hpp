#pragma once
// HDF5 pieces every output shares: /nodes/id (original id of each row), /nodes/partition (owning rank),
// and the graph itself as an anndata/scipy CSR matrix in graphrf's row order.
#include "graphrf/graph/distributed_graph.hpp"
#include "graphrf/io/h5_output.hpp"

namespace graphrf {

void write_nodes(H5Output& out, const DistributedGraph& g);
// /graph: W = D^-1/2 A D^-1/2 when normalized, else A. Column indices are graphrf's row indices.
void write_adjacency(H5Output& out, const DistributedGraph& g, bool normalized, const std::string& group = "/graph");

}  // namespace graphrf
