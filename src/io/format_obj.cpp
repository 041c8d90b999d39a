// Wavefront OBJ meshes as graphs: each "v x y z" line is a vertex (a record); "f a b c ..." faces give arcs
// along the polygon boundary (a->b, b->c, ..., last->first) and "l a b ..." polylines arcs between consecutive
// vertices, all with w = 1. Vertex references are "12", "12/3", "12/3/4" or "12//4"; 1-based, negative
// ones count back from the last vertex defined so far. Other statements (vn vt vp o g s usemtl mtllib,
// free-form geometry, ...) and '#' comments are ignored; an unknown statement is an error.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "format_parsers.hpp"
#include "format_text.hpp"

namespace graphrf::detail {

namespace {

// Statements that carry no connectivity.
bool ignored_statement(std::string_view keyword) {
  static constexpr std::string_view kIgnored[] = {
      "vn",   "vt",    "vp",   "o",    "g",    "s",      "usemtl",   "mtllib",   "p",          "mg",
      "lod",  "bevel", "c_interp", "d_interp", "shadow_obj", "trace_obj", "maplib", "usemap", "cstype",
      "deg",  "bmat",  "step", "curv", "curv2", "surf",  "parm",     "trim",     "hole",       "scrv",
      "sp",   "end",   "con",  "ctech", "stech", "call",  "csh"};
  return std::find(std::begin(kIgnored), std::end(kIgnored), keyword) != std::end(kIgnored);
}

inline bool is_vertex_line(std::string_view line) {
  const std::string_view t = trim_left(line);
  return t.size() >= 2 && t[0] == 'v' && is_blank(t[1]);
}

// What follows a vertex index in a reference: "", "/vt", "/vt/vn" or "//vn", with integer vt and vn.
bool valid_reference_tail(std::string_view tail) {
  if (tail.empty()) return true;
  if (tail[0] != '/') return false;
  tail.remove_prefix(1);
  const std::size_t slash = tail.find('/');
  std::int64_t unused = 0;
  if (slash == std::string_view::npos) return scan_int(tail, unused) == NumberStatus::ok;
  const std::string_view texture = tail.substr(0, slash), normal = tail.substr(slash + 1);
  return (texture.empty() || scan_int(texture, unused) == NumberStatus::ok) && scan_int(normal, unused) == NumberStatus::ok;
}

}  // namespace

FileHeader obj_header(std::string_view head, const std::string& /*file*/, int /*weight_column_option*/) {
  FileHeader header;  // no header: data starts at the top (after a byte order mark)
  header.data_offset = static_cast<std::int64_t>(bom_length(head));
  return header;
}

std::int64_t obj_records(std::string_view chunk) {
  std::int64_t records = 0;
  for_each_line(chunk, [&](std::string_view line, std::int64_t) {
    if (is_vertex_line(line) || trim(line) == "v") ++records;
  });
  return records;
}

void parse_obj(const FileHeader& header, std::string_view chunk, const ChunkContext& ctx, ParsedChunk& out) {
  const std::int64_t n = header.declared_nodes;
  if (n < 0) throw std::invalid_argument("parse_chunk(obj): FileHeader::declared_nodes must hold the 'v' count");
  std::int64_t seen = ctx.records_before;  // vertices defined before the current line
  for_each_line(chunk, [&](std::string_view line, std::int64_t index) {
    Tokenizer tokens(line, false);
    std::string_view keyword;
    if (!tokens.next(keyword) || keyword[0] == '#') return;
    if (keyword == "v") {
      ++seen;
      ++out.records;
      return;
    }
    const bool face = keyword == "f";
    if (!face && keyword != "l") {
      if (ignored_statement(keyword)) return;
      throw_line_error(LineRef{ctx.file_name, ctx.first_line + index, line},
                       "unknown OBJ statement '" + excerpt(keyword.substr(0, 20)) + "'");
    }
    const LineRef at{ctx.file_name, ctx.first_line + index, line};
    std::int64_t first = 0, previous = 0, count = 0;
    std::string_view token;
    while (tokens.next(token)) {
      const std::string_view index_text = token.substr(0, token.find('/'));
      std::int64_t vertex = 0;
      const NumberStatus status = scan_int(index_text, vertex);
      if (status != NumberStatus::ok) throw_bad_integer(at, "vertex index", token, status);
      if (!valid_reference_tail(token.substr(index_text.size())))
        throw_line_error(at, "vertex reference '" + excerpt(token.substr(0, 40)) +
                                 "' is malformed (expected v, v/vt, v/vt/vn or v//vn with integers)");
      if (vertex < 0) {
        const std::int64_t relative = vertex;
        vertex = seen + 1 + relative;
        if (vertex < 1) {
          throw_line_error(at, "relative vertex index " + std::to_string(relative) + " refers before the first vertex (" +
                                   std::to_string(seen) + " defined so far)");
        }
      }
      if (vertex < 1 || vertex > n) throw_id_out_of_range(at, "vertex index", vertex, 1, n);
      if (count == 0) {
        first = vertex;
      } else {
        add_arc(out, previous, vertex, 1.0, ctx.keep_self_loops);
      }
      previous = vertex;
      ++count;
    }
    if (face) {
      if (count < 3) throw_line_error(at, "an OBJ face needs at least 3 vertices");
      add_arc(out, previous, first, 1.0, ctx.keep_self_loops);
    } else if (count < 2) {
      throw_line_error(at, "an OBJ polyline needs at least 2 vertices");
    }
  });
}

}  // namespace graphrf::detail
