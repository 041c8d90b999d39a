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
};

QkvRows synthetic_qkv(const DistributedGraph& g, int heads, int d, int dv, std::uint64_t seed);
// The same draws for the nodes `ids`, one row each (a frame held by one process).
QkvRows synthetic_qkv_for_ids(std::span<const std::int64_t> ids, int heads, int d, int dv, std::uint64_t seed);
QkvRows read_qkv(const DistributedGraph& g, const std::string& path);

}  // namespace graphrf
