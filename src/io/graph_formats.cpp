// Format names, format detection, line counting and the dispatch to the per-format parsers.
#include "graphrf/io/graph_formats.hpp"

#include <algorithm>
#include <stdexcept>

#include "format_parsers.hpp"
#include "format_text.hpp"
#include "graphrf/core/error.hpp"

namespace graphrf {

using detail::iequals;

const char* format_name(GraphFormat format) {
  switch (format) {
    case GraphFormat::edge_list:
      return "edgelist";
    case GraphFormat::matrix_market:
      return "mtx";
    case GraphFormat::metis:
      return "metis";
    case GraphFormat::dimacs:
      return "dimacs";
    case GraphFormat::obj:
      return "obj";
    case GraphFormat::gml:
      return "gml";
    case GraphFormat::hdf5:
      return "hdf5";
    case GraphFormat::ply:
      return "ply";
    case GraphFormat::off:
      return "off";
    case GraphFormat::stl:
      return "stl";
  }
  return "unknown";
}

GraphFormat parse_format_name(std::string_view name) {
  struct Alias {
    std::string_view name;
    GraphFormat format;
  };
  static constexpr Alias kAliases[] = {
      {"edgelist", GraphFormat::edge_list}, {"edge-list", GraphFormat::edge_list}, {"snap", GraphFormat::edge_list},
      {"tsv", GraphFormat::edge_list},      {"csv", GraphFormat::edge_list},       {"mtx", GraphFormat::matrix_market},
      {"mm", GraphFormat::matrix_market},   {"metis", GraphFormat::metis},         {"graph", GraphFormat::metis},
      {"dimacs", GraphFormat::dimacs},      {"gr", GraphFormat::dimacs},           {"obj", GraphFormat::obj},
      {"gml", GraphFormat::gml},            {"hdf5", GraphFormat::hdf5},           {"h5", GraphFormat::hdf5},
      {"ply", GraphFormat::ply},            {"off", GraphFormat::off},             {"stl", GraphFormat::stl},
  };
  for (const Alias& a : kAliases) {
    if (iequals(name, a.name)) return a.format;
  }
  if (iequals(name, "auto")) {
    throw std::invalid_argument("parse_format_name: 'auto' is resolved by detect_format, not here");
  }
  throw InputError("graph.format: unknown format '" + detail::excerpt(name) +
                   "' (expected auto, edgelist, mtx, metis, dimacs, obj, gml, hdf5, ply, off, stl)");
}

namespace {

// Lower-cased extension of the file name's last path component, with its dot ("" if none).
std::string extension_of(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  const std::string_view base = std::string_view(path).substr(slash == std::string::npos ? 0 : slash + 1);
  const std::size_t dot = base.find_last_of('.');
  if (dot == std::string_view::npos || dot == 0) return {};
  std::string ext(base.substr(dot));
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; });
  return ext;
}

// The word of a DIMACS problem line that follows only blank and 'c' comment lines ("" if there is none).
std::string dimacs_problem_word(std::string_view head) {
  detail::HeadLines lines(head);
  while (lines.next()) {
    const std::string_view t = detail::trim_left(lines.text);
    if (t.empty() || t[0] == 'c') continue;
    std::string_view word;
    std::int64_t nodes = 0, arcs = 0;
    if (detail::parse_dimacs_problem_line(t, word, nodes, arcs)) return std::string(word.empty() ? "?" : word);
    return {};
  }
  return {};
}

// GML: after '#' comment lines, the first token is "graph" followed by '[' or the key "Creator" (Newman's
// files start with a Creator line).
bool looks_like_gml(std::string_view head) {
  detail::HeadLines lines(head);
  while (lines.next()) {
    const std::string_view t = detail::trim(lines.text);
    if (t.empty() || t[0] == '#') continue;
    if (t.rfind("Creator", 0) == 0 && t.size() > 7 && detail::is_blank(t[7])) return true;
    if (t.rfind("graph", 0) != 0) return false;
    const std::string_view rest = detail::trim_left(t.substr(5));
    return rest.empty() ? lines.next() && detail::trim_left(lines.text).rfind("[", 0) == 0 : rest[0] == '[';
  }
  return false;
}

bool looks_like_obj(std::string_view head) {
  bool vertex = false, face = false;
  detail::HeadLines lines(head);
  while (lines.next() && !(vertex && face)) {
    const std::string_view t = detail::trim_left(lines.text);
    if (t.size() >= 2 && detail::is_blank(t[1])) {
      vertex = vertex || t[0] == 'v';
      face = face || t[0] == 'f';
    }
  }
  return vertex && face;
}

// OFF and its variants: an optional ST, C, N, 4 or n prefix, then "OFF" as the first word.
bool looks_like_off(std::string_view head) {
  detail::Tokenizer tokens(head.substr(0, head.find('\n')), false);
  std::string_view word;
  if (!tokens.next(word) || word.size() < 3 || word.substr(word.size() - 3) != "OFF") return false;
  return word.substr(0, word.size() - 3).find_first_not_of("STCN4n") == std::string_view::npos;
}

// ASCII STL: "solid [name]" and a "facet" line after it.
bool looks_like_ascii_stl(std::string_view head) {
  detail::HeadLines lines(head);
  if (!lines.next() || detail::trim_left(lines.text).rfind("solid", 0) != 0) return false;
  while (lines.next()) {
    const std::string_view t = detail::trim_left(lines.text);
    if (t.empty()) continue;
    return t.rfind("facet", 0) == 0;
  }
  return false;
}

// Two or three numbers on each of the first data lines (after '#' and '%' comments): an edge list's shape.
bool looks_like_edge_list(std::string_view head) {
  detail::HeadLines lines(head);
  int seen = 0;
  while (seen < 5 && lines.next()) {
    const std::string_view t = detail::trim(lines.text);
    if (t.empty() || t[0] == '#' || t[0] == '%') continue;
    detail::Tokenizer tokens(t, true);
    std::string_view token;
    int count = 0;
    while (tokens.next(token)) {
      if (!detail::looks_numeric(token)) return false;
      ++count;
    }
    if (count < 2 || count > 3) return false;
    ++seen;
  }
  return seen >= 2;
}

}  // namespace

std::string format_hint(const std::string& path, std::string_view head, GraphFormat used) {
  FormatChoice choice;
  try {
    choice = detect_format(path, head);
  } catch (const InputError&) {
    return {};
  }
  if (choice.format == used) return {};
  const bool weak = choice.reason.rfind("default", 0) == 0;  // an edge list only for want of anything else
  if (weak && !(choice.format == GraphFormat::edge_list && looks_like_edge_list(head))) return {};
  const std::string name = format_name(choice.format);
  const std::string why = weak ? "two or three numbers a line" : choice.reason;
  return "; it looks like " + std::string(choice.format == GraphFormat::edge_list ? "an edge list" : name) + " (" +
         why + "): try graph.format " + name;
}

FormatChoice detect_format(const std::string& path, std::string_view head) {
  detail::check_not_compressed(path, head);
  if (head.substr(0, 8) == std::string_view("\x89HDF\r\n\x1a\n", 8)) return {GraphFormat::hdf5, "HDF5 signature"};
  const std::string_view text = head.substr(detail::bom_length(head));
  if (text.rfind("ply\n", 0) == 0 || text.rfind("ply\r\n", 0) == 0) return {GraphFormat::ply, "first line 'ply'"};
  if (looks_like_off(text)) return {GraphFormat::off, "first word 'OFF'"};
  if (detail::istarts_with(text, "%%MatrixMarket")) return {GraphFormat::matrix_market, "header '%%MatrixMarket'"};
  if (std::string word = dimacs_problem_word(head); !word.empty()) {
    return {GraphFormat::dimacs, "header 'p " + detail::excerpt(word.substr(0, 20)) + "'"};
  }
  const std::string ext = extension_of(path);
  struct ByExtension {
    std::string_view ext;
    GraphFormat format;
  };
  static constexpr ByExtension kSpecific[] = {
      {".mtx", GraphFormat::matrix_market}, {".mm", GraphFormat::matrix_market}, {".graph", GraphFormat::metis},
      {".metis", GraphFormat::metis},       {".gr", GraphFormat::dimacs},        {".dimacs", GraphFormat::dimacs},
      {".obj", GraphFormat::obj},           {".gml", GraphFormat::gml},          {".h5", GraphFormat::hdf5},
      {".hdf5", GraphFormat::hdf5},         {".ply", GraphFormat::ply},          {".off", GraphFormat::off},
      {".stl", GraphFormat::stl},
  };
  for (const ByExtension& e : kSpecific) {
    if (ext == e.ext) return {e.format, "extension " + ext};
  }
  if (looks_like_gml(head)) return {GraphFormat::gml, "first key 'graph [' or 'Creator'"};
  if (looks_like_obj(head)) return {GraphFormat::obj, "lines starting with 'v ' and 'f '"};
  if (looks_like_ascii_stl(head)) return {GraphFormat::stl, "'solid' and 'facet' lines"};
  static constexpr std::string_view kEdgeList[] = {".txt", ".tsv", ".csv", ".edges", ".el", ".cites", ".edgelist"};
  if (std::find(std::begin(kEdgeList), std::end(kEdgeList), ext) != std::end(kEdgeList)) {
    return {GraphFormat::edge_list, "extension " + ext};
  }
  if (ext.empty()) return {GraphFormat::edge_list, "default (no file extension)"};
  return {GraphFormat::edge_list, "default (extension " + detail::excerpt(ext) + " not recognised)"};
}

IdMode parse_id_mode(std::string_view name) {
  if (name == "auto") return IdMode::automatic;
  if (name == "integer") return IdMode::integer;
  if (name == "string") return IdMode::string;
  throw InputError("graph.ids: unknown mode '" + detail::excerpt(name) + "' (expected auto, integer or string)");
}

const char* id_mode_name(IdMode mode) {
  switch (mode) {
    case IdMode::automatic: return "auto";
    case IdMode::integer: return "integer";
    case IdMode::string: return "string";
  }
  return "?";
}

FileHeader parse_header(GraphFormat format, std::string_view head, const std::string& file_name,
                        int weight_column_option, IdMode ids) {
  if (weight_column_option < -1) {
    throw InputError("graph.weight_column: expected -1 (unweighted), 0 (default) or a column number >= 3 (got " +
                     std::to_string(weight_column_option) + ")");
  }
  if (weight_column_option > 0 && format != GraphFormat::edge_list) {
    throw InputError("graph.weight_column " + std::to_string(weight_column_option) + " applies only to edge lists; " +
                     file_name + " is read as " + format_name(format));
  }
  if (format == GraphFormat::edge_list && (weight_column_option == 1 || weight_column_option == 2)) {
    throw InputError("graph.weight_column: columns 1 and 2 hold the node ids; the weight column must be >= 3 (got " +
                     std::to_string(weight_column_option) + ")");
  }
  if (ids == IdMode::string && format != GraphFormat::edge_list) {
    throw InputError("graph.ids string applies only to edge lists; " + file_name + " is read as " + format_name(format) +
                     ", which numbers its nodes 1..N");
  }
  detail::check_not_compressed(file_name, head);
  if (is_whole_file_format(format)) throw std::invalid_argument("parse_header: the loader reads this format whole");
  if (const std::size_t cr = detail::find_lone_cr(head); cr != std::string_view::npos)
    detail::throw_lone_cr(file_name, 1, head, cr);
  if (format == GraphFormat::matrix_market) {
    detail::HeadLines first(head);
    if (first.next() && !detail::istarts_with(first.text, "%%MatrixMarket"))
      detail::throw_line_error(detail::LineRef{file_name, first.number, first.text},
                               "no %%MatrixMarket header: for a plain edge list use graph.format edgelist");
  }
  if (format == GraphFormat::gml) {
    FileHeader header;  // the whole file is data; weights from `weight`/`value` unless --weight-column -1
    header.data_offset = static_cast<std::int64_t>(detail::bom_length(head));
    header.has_weights = weight_column_option != -1;
    return header;
  }
  switch (format) {
    case GraphFormat::edge_list:
      return detail::edge_list_header(head, file_name, weight_column_option, ids);
    case GraphFormat::matrix_market:
      return detail::matrix_market_header(head, file_name, weight_column_option);
    case GraphFormat::metis:
      return detail::metis_header(head, file_name, weight_column_option);
    case GraphFormat::dimacs:
      return detail::dimacs_header(head, file_name, weight_column_option);
    case GraphFormat::obj:
      return detail::obj_header(head, file_name, weight_column_option);
    case GraphFormat::gml:
    case GraphFormat::hdf5:
    case GraphFormat::ply:
    case GraphFormat::off:
    case GraphFormat::stl:
      break;  // above
  }
  throw std::invalid_argument("parse_header: bad GraphFormat");
}

std::int64_t count_lines(std::string_view chunk) {
  if (chunk.empty()) return 0;
  const auto newlines = std::count(chunk.begin(), chunk.end(), '\n');
  return static_cast<std::int64_t>(newlines) + (chunk.back() == '\n' ? 0 : 1);
}

std::int64_t count_records(GraphFormat format, const FileHeader& /*header*/, std::string_view chunk) {
  switch (format) {
    case GraphFormat::edge_list:
      return detail::edge_list_records(chunk);
    case GraphFormat::matrix_market:
      return detail::matrix_market_records(chunk);
    case GraphFormat::metis:
      return detail::metis_records(chunk);
    case GraphFormat::dimacs:
      return detail::dimacs_records(chunk);
    case GraphFormat::obj:
      return detail::obj_records(chunk);
    case GraphFormat::gml:
      return 0;  // records are blocks, counted by parse_gml_chunk
    case GraphFormat::hdf5:
    case GraphFormat::ply:
    case GraphFormat::off:
    case GraphFormat::stl:
      return 0;  // read whole, not in chunks
  }
  throw std::invalid_argument("count_records: bad GraphFormat");
}

ParsedChunk parse_chunk(GraphFormat format, const FileHeader& header, std::string_view chunk,
                        const ChunkContext& context) {
  if (format == GraphFormat::gml) throw std::invalid_argument("parse_chunk: GML chunks need parse_gml_chunk");
  if (is_whole_file_format(format)) throw std::invalid_argument("parse_chunk: the loader reads this format whole");
  if (const std::size_t cr = detail::find_lone_cr(chunk); cr != std::string_view::npos) {
    // The lines before the CR's line are parsed first, so the first error is the same however the file is split.
    const std::size_t newline_before = chunk.rfind('\n', cr);
    (void)parse_chunk(format, header, chunk.substr(0, newline_before == std::string_view::npos ? 0 : newline_before + 1), context);
    detail::throw_lone_cr(context.file_name, context.first_line, chunk, cr);
  }
  ParsedChunk out;
  out.lines = count_lines(chunk);
  // Upper bounds (one arc per line) for the line formats; rough guesses where a line holds many arcs.
  switch (format) {
    case GraphFormat::edge_list:
    case GraphFormat::matrix_market:
    case GraphFormat::dimacs:
      out.arcs.reserve(static_cast<std::size_t>(out.lines));
      break;
    case GraphFormat::metis:
      out.arcs.reserve(chunk.size() / 8 + 16);
      break;
    case GraphFormat::obj:
      out.arcs.reserve(static_cast<std::size_t>(out.lines) * 2);
      break;
    default:
      break;
  }
  switch (format) {
    case GraphFormat::edge_list:
      detail::parse_edge_list(header, chunk, context, out);
      break;
    case GraphFormat::matrix_market:
      detail::parse_matrix_market(header, chunk, context, out);
      break;
    case GraphFormat::metis:
      detail::parse_metis(header, chunk, context, out);
      break;
    case GraphFormat::dimacs:
      detail::parse_dimacs(header, chunk, context, out);
      break;
    case GraphFormat::obj:
      detail::parse_obj(header, chunk, context, out);
      break;
    default:
      break;
  }
  return out;
}

}  // namespace graphrf
