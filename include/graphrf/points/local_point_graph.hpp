#pragma once
// The graph of one point cloud built whole by one process (a frame of a stack): the same edges, weights and
// normalisation as build_point_graph gives for that cloud at any rank count (kNN union or mutual with ties by
// id, or radius; an edge found from both ends kept once). Nodes are stored in Morton (Z-curve) order of their
// coordinates, so the k-d tree queries, the walks and the attention pass touch memory close to their last
// access (a frame of N = 32768 took about half the time of file order); `canonical` maps every node back.
#include "graphrf/graph/local_graph.hpp"
#include "graphrf/points/point_cloud.hpp"
#include "graphrf/points/point_graph.hpp"

namespace graphrf {

// InputError (from validate / edge_weight) for bad options, N < k + 1, or an edge weight that is not finite.
LocalGraph build_local_point_graph(const PointCloud& cloud, const PointGraphOptions& options);

}  // namespace graphrf
