#include "graphrf/frames/frame_stack.hpp"

#include <limits>

#include "graphrf/core/error.hpp"

namespace graphrf {

namespace {

std::string shape_text(const std::vector<std::uint64_t>& shape) {
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? " x " : "") + std::to_string(shape[i]);
  return s.empty() ? "a scalar" : s;
}

// A declared width as an int: a larger one is named as declared, never cut to 32 bits.
int declared_width(const std::string& path, const std::string& dataset, std::uint64_t width) {
  if (width > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
    throw InputError(path + ": " + dataset + " declares a width of " + std::to_string(width) + " (at most 2^31 - 1)");
  return static_cast<int>(width);
}

// Width of a per-point dataset laid out like /frames/points (F x N x w, or rows x w when ragged).
int per_point_width(const H5Input& in, const FrameStack& stack, const std::vector<std::uint64_t>& points_shape,
                    const std::string& dataset) {
  const auto shape = in.shape(dataset);
  const bool ok = stack.ragged ? shape.size() == 2 && shape[0] == points_shape[0]
                               : shape.size() == 3 && shape[0] == points_shape[0] && shape[1] == points_shape[1];
  if (!ok || shape.back() < 1)
    throw InputError(stack.path + ": " + dataset + " is " + shape_text(shape) + "; expected one row per point like /frames/points (" +
                     shape_text(points_shape) + "), with a positive width");
  return declared_width(stack.path, dataset, shape.back());
}

RowMatrix read_block(const H5Input& in, const FrameStack& stack, const std::string& dataset, std::int64_t f, int width) {
  const std::vector<double> values =
      stack.ragged ? in.read_rows_double(dataset, static_cast<std::uint64_t>(stack.offsets[static_cast<size_t>(f)]),
                                         static_cast<std::uint64_t>(stack.offsets[static_cast<size_t>(f) + 1]))
                   : in.read_rows_double(dataset, static_cast<std::uint64_t>(f), static_cast<std::uint64_t>(f) + 1);
  return Eigen::Map<const RowMatrix>(values.data(), stack.points(f), width);
}

}  // namespace

FrameStack read_frame_stack(const std::string& path) {
  const H5Input in(path);
  FrameStack stack;
  stack.path = path;
  if (!in.has("/frames/points"))
    throw InputError(path + ": no /frames/points dataset (expected F x N x d, or rows x d with /frames/offsets)");
  const auto shape = in.shape("/frames/points");
  stack.ragged = in.has("/frames/offsets");
  if (stack.ragged) {
    if (shape.size() != 2 || shape[1] < 1)
      throw InputError(path + ": /frames/points is " + shape_text(shape) + "; with /frames/offsets it must be rows x d, d >= 1");
    const auto offsets_shape = in.shape("/frames/offsets");
    if (offsets_shape.size() != 1 || offsets_shape[0] < 2 || !in.is_integer("/frames/offsets"))
      throw InputError(path + ": /frames/offsets must be F + 1 >= 2 integers (got " + shape_text(offsets_shape) + ")");
    stack.offsets = in.read_rows_int64("/frames/offsets", 0, offsets_shape[0]);
    if (stack.offsets.front() != 0)
      throw InputError(path + ": /frames/offsets[0] is " + std::to_string(stack.offsets.front()) + ", must be 0");
    for (size_t f = 0; f + 1 < stack.offsets.size(); ++f)
      if (stack.offsets[f + 1] <= stack.offsets[f])
        throw InputError(path + ": /frames/offsets: frame " + std::to_string(f) + " is empty or negative (offsets " +
                         std::to_string(stack.offsets[f]) + ", " + std::to_string(stack.offsets[f + 1]) + ")");
    if (static_cast<std::uint64_t>(stack.offsets.back()) != shape[0])
      throw InputError(path + ": /frames/offsets ends at " + std::to_string(stack.offsets.back()) + " but /frames/points has " +
                       std::to_string(shape[0]) + " rows");
  } else {
    if (shape.size() != 3 || shape[0] < 1 || shape[1] < 1 || shape[2] < 1)
      throw InputError(path + ": /frames/points is " + shape_text(shape) +
                       "; expected F x N x d (or rows x d with /frames/offsets for frames of different sizes)");
    for (std::uint64_t f = 0; f <= shape[0]; ++f) stack.offsets.push_back(static_cast<std::int64_t>(f * shape[1]));
  }
  stack.dim = declared_width(path, "/frames/points", shape.back());
  const int present = static_cast<int>(in.has("/frames/q")) + static_cast<int>(in.has("/frames/k")) + static_cast<int>(in.has("/frames/v"));
  if (present != 0 && present != 3) throw InputError(path + ": give all of /frames/q, /frames/k and /frames/v, or none");
  if (present == 3) {
    const int dq = per_point_width(in, stack, shape, "/frames/q"), dk = per_point_width(in, stack, shape, "/frames/k");
    if (dq != dk) throw InputError(path + ": /frames/q has width " + std::to_string(dq) + " but /frames/k " + std::to_string(dk));
    stack.d_qk = dq;
    stack.d_v = per_point_width(in, stack, shape, "/frames/v");
  }
  return stack;
}

Frame read_frame(const H5Input& in, const FrameStack& stack, std::int64_t f) {
  Frame frame;
  frame.index = f;
  frame.source = stack.path;
  const RowMatrix points = read_block(in, stack, "/frames/points", f, stack.dim);
  frame.cloud.dim = stack.dim;
  frame.cloud.coords.assign(points.data(), points.data() + points.size());
  frame.cloud.id.resize(static_cast<size_t>(stack.points(f)));
  for (size_t i = 0; i < frame.cloud.id.size(); ++i) frame.cloud.id[i] = static_cast<std::int64_t>(i);
  validate_point_cloud(frame.cloud, stack.path + ": /frames/points, frame " + std::to_string(f));
  if (stack.has_qkv()) {
    frame.q = read_block(in, stack, "/frames/q", f, stack.d_qk);
    frame.k = read_block(in, stack, "/frames/k", f, stack.d_qk);
    frame.v = read_block(in, stack, "/frames/v", f, stack.d_v);
  }
  return frame;
}

}  // namespace graphrf
