// STL meshes, ASCII ("solid NAME", then "facet normal ..." / "outer loop" / three "vertex x y z" / "endloop" /
// "endfacet", "endsolid") or binary (an 80-byte header, a little-endian uint32 triangle count, then 50 bytes a
// triangle: normal, three float32 corners, a 2-byte attribute). STL stores corner positions, not indices: the
// vertices are the distinct positions (exactly equal coordinates, -0 as 0), numbered in order of first
// appearance. A file is binary when its size is 84 + 50 x its triangle count (binary files may also start with
// "solid"), else ASCII.
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "format_text.hpp"
#include "mesh_formats.hpp"

namespace graphrf::detail {

namespace {

using Position = std::array<double, 3>;

struct PositionHash {
  std::size_t operator()(const Position& p) const {
    std::uint64_t h = 0x9E3779B97F4A7C15ull;
    for (double x : p) h = (h ^ std::bit_cast<std::uint64_t>(x)) * 0x100000001B3ull + (h >> 29);
    return static_cast<std::size_t>(h);
  }
};

// Distinct positions numbered in order of first appearance.
class VertexNumbering {
 public:
  std::int64_t id(Position p) {
    for (double& x : p) x += 0.0;  // -0 becomes +0: equal positions, equal bits
    const auto [it, added] = ids_.try_emplace(p, static_cast<std::int64_t>(ids_.size()));
    return it->second;
  }
  std::int64_t count() const { return static_cast<std::int64_t>(ids_.size()); }

 private:
  std::unordered_map<Position, std::int64_t, PositionHash> ids_;
};

void add_triangle(MeshGraph& mesh, const std::vector<std::int64_t>& corners, bool keep_self_loops) {
  for (std::size_t k = 0; k < corners.size(); ++k)
    add_arc(mesh.arcs, corners[k], corners[(k + 1) % corners.size()], 1.0, keep_self_loops);
  ++mesh.faces;
}

MeshGraph parse_binary(std::string_view bytes, const std::string& file, std::uint32_t triangles, bool keep_self_loops) {
  MeshGraph mesh;
  VertexNumbering numbering;
  std::vector<std::int64_t> corners(3);
  for (std::uint32_t t = 0; t < triangles; ++t) {
    const char* record = bytes.data() + 84 + 50 * static_cast<std::size_t>(t);
    for (int c = 0; c < 3; ++c) {
      Position p{};
      for (int k = 0; k < 3; ++k) {
        std::uint32_t bits = 0;
        std::memcpy(&bits, record + 12 + 12 * c + 4 * k, 4);
        if constexpr (std::endian::native == std::endian::big) bits = __builtin_bswap32(bits);
        p[static_cast<std::size_t>(k)] = std::bit_cast<float>(bits);
        if (!std::isfinite(p[static_cast<std::size_t>(k)]))
          throw_file_error(file, "triangle " + std::to_string(t) + " has a non-finite coordinate");
      }
      corners[static_cast<std::size_t>(c)] = numbering.id(p);
    }
    add_triangle(mesh, corners, keep_self_loops);
  }
  mesh.vertices = numbering.count();
  return mesh;
}

MeshGraph parse_ascii(std::string_view bytes, const std::string& file, bool keep_self_loops) {
  MeshGraph mesh;
  VertexNumbering numbering;
  std::vector<std::int64_t> corners;
  bool in_loop = false;
  for_each_line(bytes, [&](std::string_view line, std::int64_t index) {
    const LineRef at{file, index + 1, line};
    Tokenizer tokens(line, false);
    std::string_view keyword, token;
    if (!tokens.next(keyword)) return;
    if (keyword == "outer") {
      if (in_loop) throw_line_error(at, "'outer loop' inside a loop");
      in_loop = true;
      corners.clear();
    } else if (keyword == "vertex") {
      if (!in_loop) throw_line_error(at, "an STL vertex outside 'outer loop' ... 'endloop'");
      Position p{};
      for (double& x : p) {
        if (!tokens.next(token)) throw_line_error(at, "an STL vertex needs 3 coordinates");
        const NumberStatus status = scan_double(token, x);
        if (status != NumberStatus::ok || !std::isfinite(x)) throw_line_error(at, "bad STL coordinate '" + excerpt(token) + "'");
      }
      corners.push_back(numbering.id(p));
    } else if (keyword == "endloop") {
      if (!in_loop) throw_line_error(at, "'endloop' without 'outer loop'");
      if (corners.size() < 3) throw_line_error(at, "an STL facet needs at least 3 vertices");
      add_triangle(mesh, corners, keep_self_loops);
      in_loop = false;
    } else if (keyword != "solid" && keyword != "facet" && keyword != "endfacet" && keyword != "endsolid") {
      throw_line_error(at, "unknown STL keyword '" + excerpt(keyword.substr(0, 20)) + "'");
    }
  });
  if (in_loop) throw_file_error(file, "the file ends inside an STL 'outer loop': truncated file?");
  if (mesh.faces == 0) throw_file_error(file, "an STL file without facets");
  mesh.vertices = numbering.count();
  return mesh;
}

}  // namespace

MeshGraph parse_stl_mesh(std::string_view bytes, const std::string& file, bool keep_self_loops) {
  if (bytes.size() >= 84) {
    std::uint32_t triangles = 0;
    std::memcpy(&triangles, bytes.data() + 80, 4);
    if constexpr (std::endian::native == std::endian::big) triangles = __builtin_bswap32(triangles);
    if (bytes.size() == 84 + 50 * static_cast<std::size_t>(triangles)) {
      if (triangles == 0) throw_file_error(file, "an STL file without facets");
      return parse_binary(bytes, file, triangles, keep_self_loops);
    }
  }
  if (trim_left(bytes.substr(0, 80)).rfind("solid", 0) != 0)
    throw_file_error(file, "neither ASCII STL (starting 'solid') nor binary STL (84 bytes, then 50 a triangle: the size " +
                               std::to_string(bytes.size()) + " does not match the triangle count in bytes 80..83)");
  return parse_ascii(bytes, file, keep_self_loops);
}

}  // namespace graphrf::detail
