#pragma once
// Graphs on point clouds: exact k-nearest-neighbour graphs (ties broken by id) symmetrised by union or
// mutual inclusion, and radius graphs, with edge weights 1, exp(-d^2 / 2 s^2) or 1/d.
//
// Distribution: every rank holds all N coordinates (N x d doubles: 32768 points in R^3 take 768 KiB) and a
// k-d tree over them (nanoflann), and answers the queries of its own block of points in ascending-id order.
// A rank therefore finds its points' neighbours among other ranks' points without any halo exchange, and
// every row is computed exactly as a single process computes it, so the graph does not depend on the rank
// count. Memory grows with N x d per rank, which is what bounds this scheme (a spatial partition with halo
// exchange would bound it by the block plus its halo).
#include <cstdint>
#include <string>
#include <vector>

#include "graphrf/graph/distributed_graph.hpp"
#include "graphrf/io/arc_input.hpp"
#include "graphrf/mpi/communicator.hpp"
#include "graphrf/points/point_cloud.hpp"

namespace graphrf {

enum class KnnMode { union_of_lists, mutual };
enum class EdgeWeight { one, gaussian, inverse_distance };

struct PointGraphOptions {
  std::int64_t knn = 0;        // > 0: k-nearest-neighbour graph
  double radius = 0;           // > 0: all pairs at distance <= radius (exactly one of knn, radius)
  KnnMode mode = KnnMode::union_of_lists;
  EdgeWeight weight = EdgeWeight::one;
  double sigma = 1.0;          // s of the Gaussian weight
};

KnnMode parse_knn_mode(const std::string&);        // InputError naming point_graph.mode
EdgeWeight parse_edge_weight(const std::string&);  // InputError naming point_graph.weight
// InputError for neither or both of knn and radius, sigma <= 0, or N < k + 1 (with n_points >= 0).
void validate(const PointGraphOptions&, std::int64_t n_points);

struct Neighbour {
  std::int64_t index;     // row of the cloud
  double distance_sq;
  bool operator<(const Neighbour& o) const; // by distance, then by id
};

// Exact nearest-neighbour queries over one cloud (nanoflann k-d tree). Distances are computed as
// sum_c (x_c - y_c)^2 in coordinate order, so equal distances compare equal and ties go to the smaller id.
class PointIndex {
 public:
  explicit PointIndex(const PointCloud& cloud);
  ~PointIndex();
  PointIndex(const PointIndex&) = delete;
  PointIndex& operator=(const PointIndex&) = delete;
  // The k nearest other points of point i, nearest first (ties: smaller id first).
  std::vector<Neighbour> nearest(std::int64_t i, std::int64_t k) const;
  // The same into out[0..k), without allocating on the common path; returns how many (k unless the cloud is smaller).
  std::int64_t nearest(std::int64_t i, std::int64_t k, Neighbour* out) const;
  // Every other point within distance r of point i (inclusive), nearest first.
  std::vector<Neighbour> within(std::int64_t i, double r) const;
  double distance_sq(std::int64_t i, std::int64_t j) const;

  struct Tree;  // nanoflann's k-d tree of the cloud's dimension (defined in point_graph.cpp, also the baseline's)

 private:
  const PointCloud& cloud_;
  Tree* tree_;
};

// The baseline of the kNN figures: seconds nanoflann itself takes, on one core, to build its k-d tree over
// `cloud` and answer a (k + 1)-nearest query for every point (self included), with no tie handling.
double nanoflann_knn_seconds(const PointCloud& cloud, std::int64_t k);

// Weight of an edge between points at squared distance d2; InputError when it is not finite and > 0
// (coincident points with 1/d, or a Gaussian that underflows).
double edge_weight(const PointGraphOptions&, double distance_sq, std::int64_t id_a, std::int64_t id_b);

// The arcs of this rank's rows: the block of points (in ascending-id order) that BlockDistribution gives it.
// Every point id is a node, isolated or not. Collective only through its error check.
ArcInput point_graph_arcs(const Communicator& comm, const PointCloud& cloud, const PointGraphOptions& options);

// The distributed graph of a point cloud, partitioned by `partition` on hosts of host_size ranks (see GraphOptions). Collective.
DistributedGraph build_point_graph(const Communicator& comm, const PointCloud& cloud, const PointGraphOptions& options,
                                   const std::string& partition, const std::string& source, int host_size = 0);

}  // namespace graphrf
