#pragma once
// HDF5 pieces every output shares, in canonical node order (ascending original id): /nodes/id (original id of
// each row; 0..N-1 for string ids), /nodes/name (string ids), /nodes/partition (the rank that owned the node: the one per-node dataset that depends on the
// launch), and the graph itself as an anndata/scipy CSR matrix.
#include "graphrf/graph/distributed_graph.hpp"
#include "graphrf/io/h5_output.hpp"

namespace graphrf {

// /nodes/id, /nodes/partition and, for string node ids, /nodes/name (write_node_names).
void write_nodes(H5Output& out, const DistributedGraph& g);
// String node ids only (else nothing): /nodes/name, fixed-length NUL-padded UTF-8 strings as long as the longest
// name (h5py reads them as bytes; .asstr() gives str), row i naming the node of row i.
void write_node_names(H5Output& out, const DistributedGraph& g);
// Collective: refuses (InputError naming /nodes/name) names whose padded block would not fit in
// `memory_limit` bytes per rank (0: no check): one long name makes every row that long.
void check_node_names_fit(const DistributedGraph& g, std::uint64_t memory_limit);
// /graph: W = D^-1/2 A D^-1/2 when normalized, else A. Rows and columns in canonical order.
void write_adjacency(H5Output& out, const DistributedGraph& g, bool normalized, const std::string& group = "/graph");

}  // namespace graphrf
