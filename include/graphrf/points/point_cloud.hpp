#pragma once
// Points in R^d with their ids, and the readers for point files. A point's id is its /nodes/id entry (HDF5)
// or its row number from 0; the graph built on the points numbers nodes by ascending id, like any graph.
#include <cstdint>
#include <string>
#include <vector>

namespace graphrf {

struct PointCloud {
  int dim = 0;
  std::vector<std::int64_t> id;  // one per point, distinct
  std::vector<double> coords;    // row-major, id.size() x dim

  std::int64_t size() const { return static_cast<std::int64_t>(id.size()); }
  const double* point(std::int64_t i) const { return coords.data() + static_cast<size_t>(i) * static_cast<size_t>(dim); }
};

// Reads a whole point file: `format` is auto (by extension, .h5/.hdf5, .ply, anything else as text), h5, ply
// or xyz. HDF5: /points (N x d, any numeric type) and optional /nodes/id (N integers). PLY: the x, y, z
// properties of the vertex element, ASCII or binary little-endian. XYZ/CSV: one point per line, numbers
// separated by spaces, tabs or commas, '#' comments, an optional first line of column names.
// Throws InputError naming the file (and line or row) for NaN or infinite coordinates, ragged rows, wrong
// shapes, repeated ids or an empty cloud.
PointCloud read_point_cloud(const std::string& path, const std::string& format = "auto");

// The checks every reader applies (finite coordinates, distinct ids, at least one point); `where` names the source.
void validate_point_cloud(const PointCloud& cloud, const std::string& where);

}  // namespace graphrf
