// Point clouds: exact kNN and radius neighbours against brute force (random clouds, duplicate points,
// d = 2, 3, 8), and the point readers (HDF5 is covered by the MPI tests) on good and malformed files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>

#include "graphrf/core/error.hpp"
#include "graphrf/points/point_cloud.hpp"
#include "graphrf/points/local_point_graph.hpp"
#include "graphrf/points/point_graph.hpp"

namespace graphrf {
namespace {

// Points on a coarse integer lattice (so many distances tie exactly) with every fifth point repeated.
PointCloud lattice_cloud(std::int64_t n, int dim, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> coord(0, 6);
  PointCloud c;
  c.dim = dim;
  for (std::int64_t i = 0; i < n; ++i) {
    if (i % 5 == 4) {
      const std::int64_t source = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(i));
      for (int k = 0; k < dim; ++k) c.coords.push_back(c.coords[static_cast<size_t>(source * dim + k)]);
    } else {
      for (int k = 0; k < dim; ++k) c.coords.push_back(coord(rng));
    }
    c.id.push_back(1000 - 3 * i);  // ids descending, so id order differs from row order
  }
  return c;
}

PointCloud gaussian_cloud(std::int64_t n, int dim, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  PointCloud c;
  c.dim = dim;
  for (std::int64_t i = 0; i < n * dim; ++i) c.coords.push_back(normal(rng));
  for (std::int64_t i = 0; i < n; ++i) c.id.push_back(i);
  return c;
}

// Brute force: every other point, by (squared distance, id).
std::vector<std::pair<double, std::int64_t>> brute_force_order(const PointCloud& c, std::int64_t i) {
  std::vector<std::pair<double, std::int64_t>> all;
  for (std::int64_t j = 0; j < c.size(); ++j) {
    if (j == i) continue;
    double d2 = 0;
    for (int k = 0; k < c.dim; ++k) {
      const double diff = c.coords[static_cast<size_t>(i * c.dim + k)] - c.coords[static_cast<size_t>(j * c.dim + k)];
      d2 += diff * diff;
    }
    all.push_back({d2, c.id[static_cast<size_t>(j)]});
  }
  std::sort(all.begin(), all.end());
  return all;
}

void expect_knn_matches_brute_force(const PointCloud& c, std::int64_t k) {
  const PointIndex index(c);
  for (std::int64_t i = 0; i < c.size(); ++i) {
    const auto expected = brute_force_order(c, i);
    const auto got = index.nearest(i, k);
    ASSERT_EQ(got.size(), static_cast<size_t>(k));
    for (std::int64_t m = 0; m < k; ++m) {
      EXPECT_EQ(c.id[static_cast<size_t>(got[static_cast<size_t>(m)].index)], expected[static_cast<size_t>(m)].second)
          << "point " << i << " neighbour " << m;
      EXPECT_EQ(got[static_cast<size_t>(m)].distance_sq, expected[static_cast<size_t>(m)].first);
    }
  }
}

TEST(PointIndex, KnnEqualsBruteForceOnRandomClouds) {
  for (int dim : {2, 3, 8}) expect_knn_matches_brute_force(gaussian_cloud(300, dim, 11u + dim), 5);
}

TEST(PointIndex, KnnBreaksTiesByIdWithDuplicatePoints) {
  for (int dim : {2, 3, 8})
    for (std::int64_t k : {1, 3, 7}) expect_knn_matches_brute_force(lattice_cloud(200, dim, 5u + dim), k);
}

TEST(PointIndex, RadiusEqualsBruteForceInclusive) {
  for (int dim : {2, 3, 8}) {
    const PointCloud c = lattice_cloud(150, dim, 23u + dim);
    const PointIndex index(c);
    const double r = 3.0;  // lattice distances hit r exactly (e.g. (3, 0, ...)): the boundary is inclusive
    for (std::int64_t i = 0; i < c.size(); ++i) {
      std::vector<std::int64_t> expected;
      for (const auto& [d2, id] : brute_force_order(c, i))
        if (d2 <= r * r) expected.push_back(id);
      std::vector<std::int64_t> got;
      for (const auto& n : index.within(i, r)) got.push_back(c.id[static_cast<size_t>(n.index)]);
      EXPECT_EQ(got, expected) << "point " << i;
    }
  }
}

TEST(PointGraph, EdgeWeights) {
  PointGraphOptions o;
  o.knn = 1;
  EXPECT_EQ(edge_weight(o, 4.0, 0, 1), 1.0);
  o.weight = EdgeWeight::gaussian;
  o.sigma = 2.0;
  EXPECT_DOUBLE_EQ(edge_weight(o, 4.0, 0, 1), std::exp(-4.0 / 8.0));
  o.weight = EdgeWeight::inverse_distance;
  EXPECT_DOUBLE_EQ(edge_weight(o, 4.0, 0, 1), 0.5);
  EXPECT_THROW(edge_weight(o, 0.0, 3, 4), InputError);
  o.weight = EdgeWeight::gaussian;
  o.sigma = 1e-3;
  EXPECT_THROW(edge_weight(o, 100.0, 3, 4), InputError);
}

TEST(PointGraph, OptionChecks) {
  PointGraphOptions o;
  EXPECT_THROW(validate(o, 10), InputError);  // neither knn nor radius
  o.knn = 3;
  o.radius = 1;
  EXPECT_THROW(validate(o, 10), InputError);  // both
  o.radius = 0;
  EXPECT_NO_THROW(validate(o, 4));
  try {
    validate(o, 3);
    FAIL() << "N < k + 1 accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("at least k + 1 = 4 points"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_knn_mode("both"), InputError);
  EXPECT_THROW(parse_edge_weight("cosine"), InputError);
}

class PointFile {
 public:
  PointFile(const std::string& name, const std::string& content) {
    path_ = (std::filesystem::temp_directory_path() / ("graphrf-points-" + std::to_string(::getpid()) + "-" + name)).string();
    std::ofstream(path_, std::ios::binary) << content;
  }
  ~PointFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string error_of(const std::string& path) {
  try {
    read_point_cloud(path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(PointReaders, TextFormats) {
  const PointFile xyz("a.xyz", "# comment\n0 0 0\n1 2 3\n\n-1.5 2e-1 4\n");
  const PointCloud c = read_point_cloud(xyz.path());
  EXPECT_EQ(c.dim, 3);
  EXPECT_EQ(c.coords, (std::vector<double>{0, 0, 0, 1, 2, 3, -1.5, 0.2, 4}));
  EXPECT_EQ(c.id, (std::vector<std::int64_t>{0, 1, 2}));
  const PointFile csv("b.csv", "x,y\n1,2\r\n3,4\r\n");
  const PointCloud d = read_point_cloud(csv.path());
  EXPECT_EQ(d.dim, 2);
  EXPECT_EQ(d.coords, (std::vector<double>{1, 2, 3, 4}));
}

TEST(PointReaders, PlyAsciiAndBinaryAgree) {
  const std::string header_tail =
      "element vertex 2\nproperty float x\nproperty uchar red\nproperty float y\nproperty double z\n"
      "element face 0\nproperty list uchar int vertex_indices\nend_header\n";
  const PointFile ascii("a.ply", "ply\nformat ascii 1.0\ncomment made by a test\n" + header_tail + "1 7 2 3\n-4 0 5.5 6\n");
  std::string body;
  auto put = [&](auto v) { body.append(reinterpret_cast<const char*>(&v), sizeof(v)); };
  put(1.0f), put(std::uint8_t{7}), put(2.0f), put(3.0), put(-4.0f), put(std::uint8_t{0}), put(5.5f), put(6.0);
  const PointFile binary("b.ply", "ply\nformat binary_little_endian 1.0\n" + header_tail + body);
  const std::vector<double> expected{1, 2, 3, -4, 5.5, 6};
  EXPECT_EQ(read_point_cloud(ascii.path()).coords, expected);
  EXPECT_EQ(read_point_cloud(binary.path()).coords, expected);
  EXPECT_EQ(read_point_cloud(binary.path()).dim, 3);
}

TEST(PointReaders, MalformedFilesNameTheProblem) {
  const PointFile nan_text("nan.xyz", "0 0 0\n1 nan 2\n");
  EXPECT_NE(error_of(nan_text.path()).find("line 2: coordinate is NaN or infinite"), std::string::npos);
  const PointFile ragged("ragged.xyz", "0 0 0\n1 2\n");
  EXPECT_NE(error_of(ragged.path()).find("line 2: expected 3 coordinates"), std::string::npos);
  const PointFile words("words.csv", "x,y\n1,2\n3,oops\n");
  EXPECT_NE(error_of(words.path()).find("line 3: expected numbers only"), std::string::npos);
  const PointFile empty("empty.xyz", "# nothing\n");
  EXPECT_NE(error_of(empty.path()).find("no points"), std::string::npos);
  const PointFile short_ply("short.ply", "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
                                         "end_header\n1 2\n3 4\n");
  EXPECT_NE(error_of(short_ply.path()).find("PLY body ends after 2 of 3 vertices"), std::string::npos);
  const PointFile nan_ply("nan.ply", "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nend_header\nnan\n");
  EXPECT_NE(error_of(nan_ply.path()).find("NaN or infinite"), std::string::npos);
  const PointFile big_endian("be.ply", "ply\nformat binary_big_endian 1.0\nelement vertex 1\nproperty float x\nend_header\n");
  EXPECT_NE(error_of(big_endian.path()).find("not supported"), std::string::npos);
  EXPECT_NE(error_of("/nonexistent/points.xyz").find("cannot open"), std::string::npos);
}


// The whole-frame graph (frames path): union and mutual kNN by brute force, in canonical (ascending id) order,
// with the loader's degree and normalisation a_ij / sqrt(d_i d_j).
TEST(LocalPointGraph, EqualsBruteForceKnnGraph) {
  for (int dim : {2, 3, 8})
    for (KnnMode mode : {KnnMode::union_of_lists, KnnMode::mutual}) {
      const PointCloud c = dim == 3 ? lattice_cloud(160, dim, 5u) : gaussian_cloud(160, dim, 7u + unsigned(dim));
      PointGraphOptions o;
      o.knn = 4;
      o.mode = mode;
      o.weight = EdgeWeight::gaussian;
      o.sigma = 2.0;
      const std::int64_t n = c.size();
      std::map<std::int64_t, std::int64_t> row_of_id;
      for (std::int64_t i = 0; i < n; ++i) row_of_id[c.id[size_t(i)]] = i;
      std::vector<std::vector<bool>> picked(static_cast<size_t>(n), std::vector<bool>(static_cast<size_t>(n)));
      for (std::int64_t i = 0; i < n; ++i) {
        const auto order = brute_force_order(c, i);
        for (std::int64_t m = 0; m < o.knn; ++m) picked[size_t(i)][size_t(row_of_id[order[size_t(m)].second])] = true;
      }
      std::vector<std::int64_t> ids(c.id);
      std::sort(ids.begin(), ids.end());
      const LocalGraph g = build_local_point_graph(c, o);
      ASSERT_EQ(g.n(), n);
      for (std::int64_t s = 0; s < n; ++s) ASSERT_EQ(g.id[size_t(s)], ids[size_t(g.canonical[size_t(s)])]);
      std::vector<double> degree(static_cast<size_t>(n), 0.0);
      std::vector<std::vector<std::pair<std::int64_t, double>>> expected(static_cast<size_t>(n));  // canonical rows
      for (std::int64_t a = 0; a < n; ++a)
        for (std::int64_t b = 0; b < n; ++b) {
          const auto i = row_of_id[ids[size_t(a)]], j = row_of_id[ids[size_t(b)]];
          const bool ij = picked[size_t(i)][size_t(j)], ji = picked[size_t(j)][size_t(i)];
          if (mode == KnnMode::mutual ? !(ij && ji) : !(ij || ji)) continue;
          double d2 = 0;
          for (int k = 0; k < dim; ++k) d2 += std::pow(c.coords[size_t(i * dim + k)] - c.coords[size_t(j * dim + k)], 2);
          expected[size_t(a)].push_back({b, std::exp(-d2 / 8.0)});
          degree[size_t(a)] += std::exp(-d2 / 8.0);
        }
      for (std::int64_t s = 0; s < n; ++s) {  // node s of the graph is canonical node a
        const auto a = g.canonical[size_t(s)];
        ASSERT_EQ(g.row_ptr[size_t(s) + 1] - g.row_ptr[size_t(s)], std::int64_t(expected[size_t(a)].size())) << "d " << dim << " row " << a;
        for (size_t m = 0; m < expected[size_t(a)].size(); ++m) {
          const auto k = size_t(g.row_ptr[size_t(s)]) + m;
          const auto [b, w] = expected[size_t(a)][m];
          EXPECT_EQ(g.canonical[size_t(g.col[k])], b);
          EXPECT_NEAR(g.weight[k], w, 1e-15);
          EXPECT_NEAR(g.normalized_weight[k], w / std::sqrt(degree[size_t(a)] * degree[size_t(b)]), 1e-14);
        }
      }
    }
}

// More vertex lines than declared (50 for 40) were read as 40 points without a word.
TEST(PointReaders, PlyLinesBeyondTheDeclaredCountsAreRefused) {
  const std::string header = "ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\nproperty float y\n";
  const PointFile extra("extra.ply", header + "end_header\n1 2\n3 4\n5 6\n");
  EXPECT_NE(error_of(extra.path()).find("extra.ply: line 9: more lines than the header declares (2 vertices)"),
            std::string::npos) << error_of(extra.path());
  const PointFile faces("faces.ply", header + "element face 1\nproperty list uchar int vertex_indices\nend_header\n"
                                               "1 2\n3 4\n3 0 1 0\n3 0 1 1\n");
  EXPECT_NE(error_of(faces.path()).find("line 12: more lines than the header declares (2 vertices and 1 other"),
            std::string::npos) << error_of(faces.path());
  const PointFile wide("wide.ply", header + "end_header\n1 2\n3 4 5\n");
  EXPECT_NE(error_of(wide.path()).find("line 8: more than the 2 numbers"), std::string::npos) << error_of(wide.path());
  const PointFile fine("fine.ply", header + "element face 1\nproperty list uchar int vertex_indices\nend_header\n"
                                            "1 2\n3 4\n3 0 1 0\n\n");
  EXPECT_EQ(read_point_cloud(fine.path()).coords, (std::vector<double>{1, 2, 3, 4}));
}

}  // namespace
}  // namespace graphrf
