#pragma once
// Queries, keys and values of this rank's nodes, one row-major matrix per head. From HDF5 (--qkv: /q, /k
// of shape N x d or N x H x d and /v of shape N x d_v or N x H x d_v; rows in canonical node order, i.e.
// ascending node id, unless the file has its own /nodes/id), each rank reading one block of rows and
// routing them to the nodes' owners; or synthetic (--synthetic d,d_v), drawn per node id so they do not
// depend on the partition.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "graphrf/graph/distributed_graph.hpp"
#include "graphrf/attention/masked_attention.hpp"

namespace graphrf {

struct QkvRows {
  int heads = 1, d = 0, dv = 0;
  std::vector<RowMatrix> q, k, v;  // per head: n_local x d, n_local x d, n_local x dv
  std::string row_order;           // read_qkv: how file rows were matched to nodes, for the log
};

QkvRows synthetic_qkv(const DistributedGraph& g, int heads, int d, int dv, std::uint64_t seed);
// The same draws for the nodes `ids`, one row each (a frame held by one process).
QkvRows synthetic_qkv_for_ids(std::span<const std::int64_t> ids, int heads, int d, int dv, std::uint64_t seed);
// Graphs with string ids: /nodes/name (strings), else /nodes/id written as decimals, names each row's node.
QkvRows read_qkv(const DistributedGraph& g, const std::string& path);
// For a dataset whose first axis is not the node count but whose last axis is: "; NAME (shape) looks
// transposed: ... store it as (reversed shape)", else "".
std::string qkv_transpose_hint(const std::string& name, const std::vector<std::uint64_t>& shape, std::int64_t nodes);

}  // namespace graphrf
