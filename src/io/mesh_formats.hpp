#pragma once
// Polygon meshes as graphs (internal to the library): PLY, OFF and STL files are read whole by one rank, and
// the graph is the mesh's edges. Each face gives arcs along its boundary (a->b, b->c, ..., last->first, w = 1;
// an edge two faces share comes twice and is merged by the loader), PLY `edge` elements one arc each. Nodes
// are the vertices 0..N-1, isolated ones kept: PLY and OFF number them as the file does (0-based), STL, which
// stores each triangle's corner positions, numbers the distinct positions in order of first appearance.
#include <cstdint>
#include <string>
#include <string_view>

#include "graphrf/io/graph_formats.hpp"

namespace graphrf::detail {

struct MeshGraph {
  std::int64_t vertices = 0;
  std::int64_t faces = 0;
  ParsedChunk arcs;  // 0-based vertex ids; self-loops (a face repeating a vertex) counted, kept if asked
};

MeshGraph parse_ply_mesh(std::string_view bytes, const std::string& file, bool keep_self_loops);
MeshGraph parse_off_mesh(std::string_view bytes, const std::string& file, bool keep_self_loops);
MeshGraph parse_stl_mesh(std::string_view bytes, const std::string& file, bool keep_self_loops);

// Dispatches on format (ply, off or stl).
MeshGraph parse_mesh(GraphFormat format, std::string_view bytes, const std::string& file, bool keep_self_loops);

}  // namespace graphrf::detail
