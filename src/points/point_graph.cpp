#include "graphrf/points/point_graph.hpp"

#include <nanoflann.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>

#include "graphrf/core/error.hpp"
#include "graphrf/core/timer.hpp"
#include "graphrf/mpi/block_distribution.hpp"

namespace graphrf {

namespace {

// nanoflann's dataset interface over a PointCloud.
struct CloudAdaptor {
  const PointCloud& cloud;
  size_t kdtree_get_point_count() const { return static_cast<size_t>(cloud.size()); }
  double kdtree_get_pt(size_t i, size_t c) const { return cloud.coords[i * static_cast<size_t>(cloud.dim) + c]; }
  template <class Box>
  bool kdtree_get_bbox(Box&) const { return false; }
};

// The dimension is a template argument of nanoflann's tree: clouds in R^2 and R^3 (the common cases) get
// trees whose distance loops are unrolled, others the run-time one.
template <int Dim>
using KdTree = nanoflann::KDTreeSingleIndexAdaptor<nanoflann::L2_Simple_Adaptor<double, CloudAdaptor>, CloudAdaptor, Dim,
                                                   std::uint32_t>;
constexpr std::size_t kLeafSize = 10;  // nanoflann's default leaf size

}  // namespace

struct PointIndex::Tree {
  CloudAdaptor adaptor;
  std::unique_ptr<KdTree<2>> plane;
  std::unique_ptr<KdTree<3>> space;
  std::unique_ptr<KdTree<-1>> any;
  explicit Tree(const PointCloud& cloud) : adaptor{cloud} {
    const nanoflann::KDTreeSingleIndexAdaptorParams params(kLeafSize);
    const auto dims = static_cast<size_t>(cloud.dim);
    if (cloud.dim == 2) (plane = std::make_unique<KdTree<2>>(dims, adaptor, params))->buildIndex();
    else if (cloud.dim == 3) (space = std::make_unique<KdTree<3>>(dims, adaptor, params))->buildIndex();
    else (any = std::make_unique<KdTree<-1>>(dims, adaptor, params))->buildIndex();
  }
  // f(tree) with the one tree this cloud has.
  template <class F>
  decltype(auto) visit(F&& f) const {
    if (plane) return f(*plane);
    if (space) return f(*space);
    return f(*any);
  }
  size_t knn(const double* point, size_t want, std::uint32_t* index, double* d2) const {
    return visit([&](const auto& tree) { return tree.knnSearch(point, want, index, d2); });
  }
  void radius(const double* point, double r_sq, std::vector<std::pair<std::uint32_t, double>>& found) const {
    nanoflann::SearchParams params;
    params.sorted = false;
    visit([&](const auto& tree) { return tree.radiusSearch(point, r_sq, found, params); });
  }
};

double nanoflann_knn_seconds(const PointCloud& cloud, std::int64_t k) {
  Timer timer;
  const PointIndex::Tree tree(cloud);  // nanoflann's tree of the cloud's dimension, as PointIndex builds it
  const auto want = static_cast<size_t>(std::min<std::int64_t>(k + 1, cloud.size()));
  std::vector<std::uint32_t> index(want);
  std::vector<double> d2(want);
  std::uint64_t checksum = 0;  // keeps the queries from being optimised away
  for (std::int64_t i = 0; i < cloud.size(); ++i) {
    tree.knn(cloud.point(i), want, index.data(), d2.data());
    checksum += index[want - 1];
  }
  const double seconds = timer.seconds();
  return checksum == UINT64_MAX ? -seconds : seconds;
}

KnnMode parse_knn_mode(const std::string& s) {
  if (s == "union") return KnnMode::union_of_lists;
  if (s == "mutual") return KnnMode::mutual;
  throw InputError("point_graph.mode: expected union or mutual (got '" + s + "')");
}

EdgeWeight parse_edge_weight(const std::string& s) {
  if (s == "one") return EdgeWeight::one;
  if (s == "gaussian") return EdgeWeight::gaussian;
  if (s == "inverse") return EdgeWeight::inverse_distance;
  throw InputError("point_graph.weight: expected one, gaussian or inverse (got '" + s + "')");
}

void validate(const PointGraphOptions& o, std::int64_t n_points) {
  if ((o.knn > 0) == (o.radius > 0)) throw InputError("point_graph.knn / point_graph.radius: give exactly one of them, positive");
  if (o.knn < 0) throw InputError("point_graph.knn: must be >= 1 (got " + std::to_string(o.knn) + ")");
  if (o.radius < 0 || !std::isfinite(o.radius)) throw InputError("point_graph.radius: must be finite and > 0");
  if (!(o.sigma > 0) || !std::isfinite(o.sigma)) throw InputError("point_graph.sigma: must be finite and > 0");
  if (o.knn > 0 && n_points >= 0 && n_points < o.knn + 1)
    throw InputError("point_graph.knn " + std::to_string(o.knn) + ": needs at least k + 1 = " + std::to_string(o.knn + 1) +
                     " points (the cloud has " + std::to_string(n_points) + ")");
  if (o.knn > 0 && o.knn > 100000) throw InputError("point_graph.knn: at most 100000 neighbours");
}

bool Neighbour::operator<(const Neighbour& o) const {
  return distance_sq != o.distance_sq ? distance_sq < o.distance_sq : index < o.index;
}

PointIndex::PointIndex(const PointCloud& cloud) : cloud_(cloud), tree_(new Tree(cloud)) {}
PointIndex::~PointIndex() { delete tree_; }

double PointIndex::distance_sq(std::int64_t i, std::int64_t j) const {
  const double* a = cloud_.point(i);
  const double* b = cloud_.point(j);
  double sum = 0;
  for (int c = 0; c < cloud_.dim; ++c) sum += (a[c] - b[c]) * (a[c] - b[c]);
  return sum;
}

std::vector<Neighbour> PointIndex::within(std::int64_t i, double r) const {
  // nanoflann keeps distances strictly below its radius and rounds differently from distance_sq: search a
  // slightly larger ball, then decide membership with our own distances.
  const double r_sq = r * r;
  const double search_sq = r_sq * (1 + 1e-9) + 1e-300;
  std::vector<std::pair<std::uint32_t, double>> found;
  tree_->radius(cloud_.point(i), search_sq, found);
  std::vector<Neighbour> out;
  out.reserve(found.size());
  for (const auto& [j, approximate] : found) {
    if (static_cast<std::int64_t>(j) == i) continue;
    const double d2 = distance_sq(i, j);
    if (d2 <= r_sq) out.push_back({static_cast<std::int64_t>(j), d2});
  }
  std::sort(out.begin(), out.end(), [&](const Neighbour& a, const Neighbour& b) {
    return a.distance_sq != b.distance_sq ? a.distance_sq < b.distance_sq : cloud_.id[static_cast<size_t>(a.index)] <
                                                                                  cloud_.id[static_cast<size_t>(b.index)];
  });
  return out;
}

std::vector<Neighbour> PointIndex::nearest(std::int64_t i, std::int64_t k) const {
  std::vector<Neighbour> out(static_cast<size_t>(k));
  out.resize(static_cast<size_t>(nearest(i, k, out.data())));
  return out;
}

std::int64_t PointIndex::nearest(std::int64_t i, std::int64_t k, Neighbour* out) const {
  // Fast path: the k + 2 nearest points by nanoflann (self among them unless k + 2 others coincide with it).
  // When our k-th distance lies clearly below nanoflann's farthest returned distance, no point outside the
  // returned set can tie with or beat it, so sorting the returned ones by (distance, id) is exact.
  const auto want = static_cast<size_t>(std::min<std::int64_t>(k + 2, cloud_.size()));
  const auto by_distance_then_id = [&](const Neighbour& a, const Neighbour& b) {
    return a.distance_sq != b.distance_sq ? a.distance_sq < b.distance_sq
                                          : cloud_.id[static_cast<size_t>(a.index)] < cloud_.id[static_cast<size_t>(b.index)];
  };
  if (want <= 64) {
    std::uint32_t index[64];
    double d2[64];
    Neighbour found[64];
    const size_t got = tree_->knn(cloud_.point(i), want, index, d2);
    size_t others = 0;
    double farthest = 0;
    for (size_t m = 0; m < got; ++m) {
      farthest = std::max(farthest, d2[m]);
      if (static_cast<std::int64_t>(index[m]) != i) found[others++] = {static_cast<std::int64_t>(index[m]), distance_sq(i, index[m])};
    }
    std::sort(found, found + others, by_distance_then_id);
    const bool whole_cloud = static_cast<std::int64_t>(got) == cloud_.size();
    if (static_cast<std::int64_t>(others) >= k && (whole_cloud || found[k - 1].distance_sq < farthest * (1 - 1e-9))) {
      std::copy_n(found, k, out);
      return k;
    }
  }
  // Ties at the k-th distance (or a large k): every point within the bound is a candidate, ties go to the smaller id.
  const auto bound_want = static_cast<size_t>(std::min<std::int64_t>(k + 1, cloud_.size()));
  std::vector<std::uint32_t> found(bound_want);
  std::vector<double> found_d2(bound_want);
  const size_t got = tree_->knn(cloud_.point(i), bound_want, found.data(), found_d2.data());
  double bound_sq = 0;
  for (size_t m = 0; m < got; ++m) bound_sq = std::max(bound_sq, distance_sq(i, found[m]));
  const std::vector<Neighbour> candidates = within(i, std::sqrt(bound_sq) * (1 + 1e-12) + 1e-300);
  const auto count = std::min<std::int64_t>(k, static_cast<std::int64_t>(candidates.size()));
  std::copy_n(candidates.begin(), count, out);
  return count;
}

double edge_weight(const PointGraphOptions& o, double distance_sq, std::int64_t id_a, std::int64_t id_b) {
  double w = 1.0;
  if (o.weight == EdgeWeight::gaussian) w = std::exp(-distance_sq / (2 * o.sigma * o.sigma));
  if (o.weight == EdgeWeight::inverse_distance) w = 1.0 / std::sqrt(distance_sq);
  if (!(w > 0) || !std::isfinite(w)) {
    const std::string pair = "points " + std::to_string(id_a) + " and " + std::to_string(id_b);
    if (o.weight == EdgeWeight::inverse_distance)
      throw InputError("point_graph.weight inverse: " + pair + " coincide (1/d is infinite)");
    throw InputError("point_graph.sigma " + std::to_string(o.sigma) + ": exp(-d^2/2s^2) underflows to 0 for " + pair +
                     " at distance " + std::to_string(std::sqrt(distance_sq)));
  }
  return w;
}

ArcInput point_graph_arcs(const Communicator& comm, const PointCloud& cloud, const PointGraphOptions& options) {
  Timer timer;
  ArcInput input;
  collective_try(comm, [&] {
    validate(options, cloud.size());
    const PointIndex index(cloud);
    std::vector<std::int64_t> by_id(static_cast<size_t>(cloud.size()));
    std::iota(by_id.begin(), by_id.end(), 0);
    std::sort(by_id.begin(), by_id.end(), [&](auto a, auto b) { return cloud.id[size_t(a)] < cloud.id[size_t(b)]; });
    const auto dist = BlockDistribution::uniform(cloud.size(), comm.size());
    auto neighbours_of = [&](std::int64_t i) {
      return options.knn > 0 ? index.nearest(i, options.knn) : index.within(i, options.radius);
    };
    for (std::int64_t r = dist.first(comm.rank()); r < dist.first(comm.rank()) + dist.count(comm.rank()); ++r) {
      const std::int64_t i = by_id[static_cast<size_t>(r)];
      const std::int64_t id = cloud.id[static_cast<size_t>(i)];
      input.self_loop_ids.push_back(id);  // every point is a node, even without edges
      for (const Neighbour& n : neighbours_of(i)) {
        if (options.knn > 0 && options.mode == KnnMode::mutual) {
          const auto back = index.nearest(n.index, options.knn);
          if (std::none_of(back.begin(), back.end(), [&](const Neighbour& b) { return b.index == i; })) continue;
        }
        const std::int64_t other = cloud.id[static_cast<size_t>(n.index)];
        input.arcs.push_back({id, other, edge_weight(options, n.distance_sq, id, other)});
      }
    }
  });
  input.report.arcs_read = comm.sum(static_cast<std::int64_t>(input.arcs.size()));
  input.report.weighted = options.weight != EdgeWeight::one;
  input.report.read_seconds = comm.max(timer.seconds());
  return input;
}

DistributedGraph build_point_graph(const Communicator& comm, const PointCloud& cloud, const PointGraphOptions& options,
                                   const std::string& partition, const std::string& source, int host_size) {
  ArcInput input = point_graph_arcs(comm, cloud, options);
  input.report.source = source;
  CanonicalGraph canonical = assemble_canonical_graph(comm, std::move(input), DuplicatePolicy::max);
  return partition_and_distribute(comm, std::move(canonical), partition, host_size);
}

}  // namespace graphrf
