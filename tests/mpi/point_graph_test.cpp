// Point-cloud graphs built across ranks equal the graph a brute-force single-process computation gives
// (kNN union and mutual, radius; duplicate points; d = 2, 3, 8), whatever the rank count.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include "graphrf/points/point_graph.hpp"
#include "mpi_test_support.hpp"

namespace graphrf {
namespace {

using testing::gather_entries;
using testing::Triplet;
using testing::world;

// Lattice points (exact distance ties) with every fourth point a duplicate of an earlier one; ids shuffled.
PointCloud tied_cloud(std::int64_t n, int dim, unsigned seed) {
  std::mt19937_64 rng(seed);
  PointCloud c;
  c.dim = dim;
  for (std::int64_t i = 0; i < n; ++i) {
    const bool duplicate = i % 4 == 3;
    const auto source = duplicate ? static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(i)) : 0;
    for (int k = 0; k < dim; ++k)
      c.coords.push_back(duplicate ? c.coords[static_cast<size_t>(source * dim + k)] : static_cast<double>(rng() % 5));
    c.id.push_back(7 * i + 3);
  }
  std::shuffle(c.id.begin(), c.id.end(), rng);
  return c;
}

// The graph by brute force: for each point its k nearest by (distance, id), then union or mutual.
std::vector<Triplet> brute_force_graph(const PointCloud& c, const PointGraphOptions& o) {
  const auto n = c.size();
  auto d2 = [&](std::int64_t i, std::int64_t j) {
    double s = 0;
    for (int k = 0; k < c.dim; ++k) {
      const double diff = c.coords[size_t(i * c.dim + k)] - c.coords[size_t(j * c.dim + k)];
      s += diff * diff;
    }
    return s;
  };
  std::vector<std::vector<bool>> picked(size_t(n), std::vector<bool>(size_t(n), false));
  for (std::int64_t i = 0; i < n; ++i) {
    std::vector<std::pair<double, std::int64_t>> order;  // (distance^2, id) -> row via map below
    for (std::int64_t j = 0; j < n; ++j)
      if (j != i) order.push_back({d2(i, j), j});
    std::sort(order.begin(), order.end(), [&](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first : c.id[size_t(a.second)] < c.id[size_t(b.second)];
    });
    for (size_t m = 0; m < order.size(); ++m) {
      const bool in = o.knn > 0 ? m < size_t(o.knn) : order[m].first <= o.radius * o.radius;
      if (in) picked[size_t(i)][size_t(order[m].second)] = true;
    }
  }
  std::vector<Triplet> out;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const bool a = picked[size_t(i)][size_t(j)], b = picked[size_t(j)][size_t(i)];
      if (o.mode == KnnMode::mutual && o.knn > 0 ? (a && b) : (a || b))
        out.push_back({c.id[size_t(i)], c.id[size_t(j)], std::exp(-d2(i, j) / (2 * o.sigma * o.sigma))});
    }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(PointGraph, DistributedGraphEqualsBruteForce) {
  for (int dim : {2, 3, 8}) {
    const PointCloud cloud = tied_cloud(120, dim, 40u + unsigned(dim));
    for (int variant = 0; variant < 3; ++variant) {
      PointGraphOptions o;
      o.weight = EdgeWeight::gaussian;
      o.sigma = 1.5;
      if (variant == 2) o.radius = 2.0;
      else o.knn = 3;
      if (variant == 1) o.mode = KnnMode::mutual;
      const DistributedGraph g = build_point_graph(world(), cloud, o, "block", "test cloud");
      EXPECT_EQ(g.n_global(), cloud.size());
      const auto got = gather_entries(g, false);
      const auto expected = brute_force_graph(cloud, o);
      ASSERT_EQ(got.size(), expected.size()) << "d = " << dim << ", variant " << variant;
      for (size_t k = 0; k < got.size(); ++k) {
        EXPECT_EQ(got[k].row, expected[k].row);
        EXPECT_EQ(got[k].col, expected[k].col);
        EXPECT_EQ(got[k].value, expected[k].value);
      }
    }
  }
}

TEST(PointGraph, TooFewPointsIsOneCollectiveError) {
  const PointCloud cloud = tied_cloud(3, 2, 1);
  PointGraphOptions o;
  o.knn = 3;
  try {
    build_point_graph(world(), cloud, o, "block", "small");
    FAIL() << "N < k + 1 accepted";
  } catch (const InputError& e) {
    EXPECT_TRUE(e.collective());
    EXPECT_NE(std::string(e.what()).find("needs at least k + 1 = 4 points"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace graphrf
