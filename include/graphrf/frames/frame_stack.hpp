#pragma once
// A stack of point clouds in one HDF5 file (--frames): /frames/points is F x N x d (frames of equal size) or
// (sum of N_f) x d with /frames/offsets (F + 1 row offsets, from 0, non-decreasing) for frames of different
// sizes; optional /frames/q, /frames/k (rows like /frames/points, width d_qk) and /frames/v (width d_v), all
// three or none. A frame's points have ids 0 .. N_f - 1 in row order, so canonical order is row order.
#include <cstdint>
#include <string>
#include <vector>

#include "graphrf/attention/masked_attention.hpp"
#include "graphrf/io/h5_input.hpp"
#include "graphrf/points/point_cloud.hpp"

namespace graphrf {

struct FrameStack {
  std::string path;
  int dim = 0;                        // coordinates per point
  bool ragged = false;                // /frames/offsets given
  std::vector<std::int64_t> offsets;  // F + 1 point offsets
  int d_qk = 0, d_v = 0;              // widths of /frames/q and /frames/k, and of /frames/v (0: not in the file)

  std::int64_t frames() const { return static_cast<std::int64_t>(offsets.size()) - 1; }
  std::int64_t points(std::int64_t f) const { return offsets[static_cast<size_t>(f) + 1] - offsets[static_cast<size_t>(f)]; }
  std::int64_t total_points() const { return offsets.back(); }
  bool has_qkv() const { return d_qk > 0; }
};

// Reads and checks the layout (not the coordinates): InputError naming the file and the dataset for a
// missing /frames/points, wrong ranks or shapes, offsets that do not start at 0, decrease or miss the row
// count, empty frames, or q/k/v that do not match the points' rows.
FrameStack read_frame_stack(const std::string& path);

struct Frame {
  std::int64_t index = 0;
  std::string source;  // the stack's file, for messages
  PointCloud cloud;    // ids 0 .. N_f - 1
  RowMatrix q, k, v;   // N_f rows each when the file has them, else empty
};

// Frame f's points (and q/k/v), read with hyperslabs. InputError naming the file and the frame for NaN or
// infinite coordinates.
Frame read_frame(const H5Input& in, const FrameStack& stack, std::int64_t f);

}  // namespace graphrf
