#include "graphrf/points/local_point_graph.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <span>

namespace graphrf {

namespace {

struct PointArc {
  std::int64_t from, to;  // node indices (Morton order)
  std::int64_t to_canonical;
  double weight;
};

// Spreads the low 21 bits of x to every third bit.
std::uint64_t spread_bits(std::uint64_t x) {
  x &= 0x1fffff;
  x = (x | x << 32) & 0x1f00000000ffffULL;
  x = (x | x << 16) & 0x1f0000ff0000ffULL;
  x = (x | x << 8) & 0x100f00f00f00f00fULL;
  x = (x | x << 4) & 0x10c30c30c30c30c3ULL;
  x = (x | x << 2) & 0x1249249249249249ULL;
  return x;
}

// Rows of the cloud in Morton order of their first (up to) three coordinates, ties by id.
std::vector<std::int64_t> morton_order(const PointCloud& cloud) {
  const int dims = std::min(cloud.dim, 3);
  std::vector<double> lo(static_cast<size_t>(dims), INFINITY), hi(static_cast<size_t>(dims), -INFINITY);
  for (std::int64_t i = 0; i < cloud.size(); ++i)
    for (int c = 0; c < dims; ++c) {
      lo[size_t(c)] = std::min(lo[size_t(c)], cloud.point(i)[c]);
      hi[size_t(c)] = std::max(hi[size_t(c)], cloud.point(i)[c]);
    }
  std::vector<std::pair<std::uint64_t, std::int64_t>> keyed(static_cast<size_t>(cloud.size()));
  for (std::int64_t i = 0; i < cloud.size(); ++i) {
    std::uint64_t code = 0;
    for (int c = 0; c < dims; ++c) {
      const double span = hi[size_t(c)] - lo[size_t(c)];
      const double unit = span > 0 ? (cloud.point(i)[c] - lo[size_t(c)]) / span : 0.0;
      code |= spread_bits(static_cast<std::uint64_t>(unit * 2097151.0)) << c;
    }
    keyed[static_cast<size_t>(i)] = {code, i};
  }
  std::sort(keyed.begin(), keyed.end(), [&](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : cloud.id[size_t(a.second)] < cloud.id[size_t(b.second)];
  });
  std::vector<std::int64_t> order(keyed.size());
  for (size_t s = 0; s < keyed.size(); ++s) order[s] = keyed[s].second;
  return order;
}

}  // namespace

LocalGraph build_local_point_graph(const PointCloud& input, const PointGraphOptions& options) {
  validate(options, input.size());
  const std::int64_t n = input.size();
  // The cloud in Morton order: node s is input row order[s].
  const std::vector<std::int64_t> order = morton_order(input);
  PointCloud cloud;
  cloud.dim = input.dim;
  cloud.id.resize(static_cast<size_t>(n));
  cloud.coords.resize(input.coords.size());
  for (std::int64_t s = 0; s < n; ++s) {
    const auto r = static_cast<size_t>(order[static_cast<size_t>(s)]);
    cloud.id[static_cast<size_t>(s)] = input.id[r];
    std::copy_n(input.point(static_cast<std::int64_t>(r)), input.dim, cloud.coords.begin() + s * input.dim);
  }
  LocalGraph g;
  g.id = cloud.id;
  g.canonical.resize(static_cast<size_t>(n));
  if (std::is_sorted(input.id.begin(), input.id.end())) {  // a frame: ids 0 .. N - 1 in row order
    for (std::int64_t s = 0; s < n; ++s) g.canonical[static_cast<size_t>(s)] = order[static_cast<size_t>(s)];
  } else {
    std::vector<std::int64_t> by_id(static_cast<size_t>(n));
    std::iota(by_id.begin(), by_id.end(), 0);
    std::sort(by_id.begin(), by_id.end(), [&](auto a, auto b) { return cloud.id[size_t(a)] < cloud.id[size_t(b)]; });
    for (std::int64_t c = 0; c < n; ++c) g.canonical[static_cast<size_t>(by_id[static_cast<size_t>(c)])] = c;
  }

  // Each point's neighbours, nearest first: lists[first[i] .. first[i + 1]).
  const PointIndex index(cloud);
  std::vector<Neighbour> lists;
  std::vector<std::int64_t> first(static_cast<size_t>(n) + 1, 0);
  if (options.knn > 0) {
    lists.resize(static_cast<size_t>(n * options.knn));
    for (std::int64_t i = 0; i < n; ++i) {
      const auto found = index.nearest(i, options.knn, lists.data() + first[static_cast<size_t>(i)]);
      first[static_cast<size_t>(i) + 1] = first[static_cast<size_t>(i)] + found;
    }
  } else {
    for (std::int64_t i = 0; i < n; ++i) {
      const auto found = index.within(i, options.radius);
      lists.insert(lists.end(), found.begin(), found.end());
      first[static_cast<size_t>(i) + 1] = static_cast<std::int64_t>(lists.size());
    }
  }
  const auto neighbours = [&](std::int64_t i) {
    return std::span<const Neighbour>(lists.data() + first[static_cast<size_t>(i)], lists.data() + first[static_cast<size_t>(i) + 1]);
  };

  // Both directions of every accepted pair, bucketed by source node (a counting sort: rows come out in node
  // order without sorting all arcs); a pair found from both ends appears twice and is merged below.
  auto accepted = [&](std::int64_t i, const Neighbour& nb) {
    if (options.knn == 0 || options.mode != KnnMode::mutual) return true;
    const auto back = neighbours(nb.index);
    return std::any_of(back.begin(), back.end(), [&](const Neighbour& b) { return b.index == i; });
  };
  std::vector<std::int64_t> start(static_cast<size_t>(n) + 1, 0);
  for (std::int64_t i = 0; i < n; ++i)
    for (const Neighbour& nb : neighbours(i))
      if (accepted(i, nb)) ++start[static_cast<size_t>(i) + 1], ++start[static_cast<size_t>(nb.index) + 1];
  std::partial_sum(start.begin(), start.end(), start.begin());
  std::vector<PointArc> arcs(static_cast<size_t>(start.back()));
  std::vector<std::int64_t> fill(start.begin(), start.end() - 1);
  for (std::int64_t i = 0; i < n; ++i)
    for (const Neighbour& nb : neighbours(i)) {
      if (!accepted(i, nb)) continue;
      const double w = edge_weight(options, nb.distance_sq, cloud.id[size_t(i)], cloud.id[size_t(nb.index)]);
      arcs[static_cast<size_t>(fill[static_cast<size_t>(i)]++)] = {i, nb.index, g.canonical[size_t(nb.index)], w};
      arcs[static_cast<size_t>(fill[static_cast<size_t>(nb.index)]++)] = {nb.index, i, g.canonical[size_t(i)], w};
    }
  // Neighbours in ascending canonical index (the distributed engine's row order); rows are short.
  for (std::int64_t i = 0; i < n; ++i)
    std::sort(arcs.begin() + start[static_cast<size_t>(i)], arcs.begin() + start[static_cast<size_t>(i) + 1],
              [](const PointArc& x, const PointArc& y) { return x.to_canonical < y.to_canonical; });
  g.row_ptr.assign(static_cast<size_t>(n) + 1, 0);
  g.col.reserve(arcs.size());
  g.weight.reserve(arcs.size());
  for (size_t k = 0; k < arcs.size(); ++k) {
    if (k > 0 && arcs[k].from == arcs[k - 1].from && arcs[k].to == arcs[k - 1].to) {
      g.weight.back() = std::max(g.weight.back(), arcs[k].weight);  // the distributed loader's merge rule
      continue;
    }
    g.col.push_back(arcs[k].to);
    g.weight.push_back(arcs[k].weight);
    ++g.row_ptr[static_cast<size_t>(arcs[k].from) + 1];
  }
  std::partial_sum(g.row_ptr.begin(), g.row_ptr.end(), g.row_ptr.begin());
  normalize_local_graph(g);
  return g;
}

}  // namespace graphrf
