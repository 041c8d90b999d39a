#pragma once
// HDF5 pieces every output shares, in canonical node order (ascending original id): /nodes/id (original id of
// each row), /nodes/partition (the rank that owned the node: the one per-node dataset that depends on the
// launch), and the graph itself as an anndata/scipy CSR matrix.
#include "graphrf/graph/distributed_graph.hpp"
#include "graphrf/io/h5_output.hpp"

namespace graphrf {

void write_nodes(H5Output& out, const DistributedGraph& g);
// /graph: W = D^-1/2 A D^-1/2 when normalized, else A. Rows and columns in canonical order.
void write_adjacency(H5Output& out, const DistributedGraph& g, bool normalized, const std::string& group = "/graph");

}  // namespace graphrf
