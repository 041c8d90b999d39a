// OFF meshes (Geomview's Object File Format, ASCII): a first word "OFF" (or a variant: ST, C, N, 4 or n
// prefixes; "nOFF" has a dimension before the counts), the counts "vertices faces [edges]" (on the same line
// or the next), one line per vertex, then one line per face "k i_1 .. i_k [colour]" with 0-based indices.
// '#' starts a comment; blank lines are skipped.
#include <vector>

#include "format_text.hpp"
#include "mesh_formats.hpp"

namespace graphrf::detail {

MeshGraph parse_off_mesh(std::string_view bytes, const std::string& file, bool keep_self_loops) {
  MeshGraph mesh;
  bool keyword_seen = false, dimension_pending = false;
  std::int64_t counts[3] = {-1, -1, -1};
  int counts_read = 0;
  std::int64_t vertex_lines = 0, face_lines = 0, last_line = 0;
  std::vector<std::int64_t> corners;
  for_each_line(bytes.substr(bom_length(bytes)), [&](std::string_view line, std::int64_t index) {
    const LineRef at{file, index + 1, line};
    last_line = index + 1;
    const std::string_view content = trim(line.substr(0, line.find('#')));
    if (content.empty()) return;
    Tokenizer tokens(content, false);
    std::string_view token;
    if (!keyword_seen) {
      tokens.next(token);
      if (token.size() < 3 || token.substr(token.size() - 3) != "OFF")
        throw_line_error(at, "an OFF file starts with the word 'OFF'");
      dimension_pending = token.find('n') != std::string_view::npos;
      keyword_seen = true;
    }
    if (counts_read < 2) {  // the counts line (possibly after OFF on the same line)
      while (counts_read < 3 && tokens.next(token)) {
        if (token == "BINARY") throw_line_error(at, "binary OFF is not read; convert the mesh to ASCII OFF or to PLY");
        const std::int64_t value = parse_id(token, at, "OFF count", 0, -1);
        if (dimension_pending) {
          dimension_pending = false;
          continue;
        }
        counts[counts_read++] = value;
      }
      if (counts_read > 0 && counts_read < 2) throw_line_error(at, "expected the OFF counts 'vertices faces [edges]'");
      if (counts_read >= 2) {
        mesh.vertices = counts[0];
        if (counts[0] == 0) throw_line_error(at, "an OFF file with no vertices");
        if (counts[1] == 0)
          throw_line_error(at, "an OFF file with no faces is a point cloud: read its vertices as --points (XYZ) instead");
      }
      return;
    }
    if (vertex_lines < counts[0]) {
      ++vertex_lines;
      return;
    }
    if (face_lines == counts[1]) throw_line_error(at, "more lines than the OFF counts declare");
    ++face_lines;
    tokens.next(token);
    const std::int64_t k = parse_id(token, at, "face vertex count", 0, -1);
    if (k < 3) throw_line_error(at, "an OFF face needs at least 3 vertices");
    corners.clear();
    for (std::int64_t j = 0; j < k; ++j) {
      if (!tokens.next(token)) throw_line_error(at, "the face lists fewer vertex indices than its count " + std::to_string(k));
      corners.push_back(parse_id(token, at, "vertex index", 0, mesh.vertices - 1));
    }
    for (std::size_t j = 0; j < corners.size(); ++j)
      add_arc(mesh.arcs, corners[j], corners[(j + 1) % corners.size()], 1.0, keep_self_loops);
    ++mesh.faces;
  });
  if (!keyword_seen) throw_file_error(file, "empty OFF file");
  if (counts_read < 2) throw_file_error(file, "no OFF counts line 'vertices faces [edges]'");
  if (vertex_lines < counts[0] || face_lines < counts[1])
    throw_file_error(file, "the counts declare " + std::to_string(counts[0]) + " vertices and " + std::to_string(counts[1]) +
                               " faces but the file ends after " + std::to_string(vertex_lines) + " vertex and " +
                               std::to_string(face_lines) + " face lines (line " + std::to_string(last_line) +
                               "): truncated file?");
  return mesh;
}

}  // namespace graphrf::detail
