// METIS .graph files: '%' comment lines; the header "n m [fmt [ncon]]" where fmt has up to 3 binary digits
// (first: vertex sizes, middle: vertex weights, ncon of them (default 1), last: edge weights); then one line
// per vertex, the k-th non-comment line after the header being vertex k (1-based). A vertex line is
// "[size] [w_1 .. w_ncon] (neighbour [edge_weight])*"; sizes and vertex weights are skipped. An empty line is
// an isolated vertex. m counts undirected edges, each listed from both ends.
#include <cstdint>
#include <string>
#include <string_view>

#include "format_parsers.hpp"
#include "format_text.hpp"

namespace graphrf::detail {

namespace {

inline bool is_comment(std::string_view line) {
  const std::string_view t = trim_left(line);
  return !t.empty() && t[0] == '%';
}

}  // namespace

FileHeader metis_header(std::string_view head, const std::string& file, int weight_column_option) {
  FileHeader header;
  HeadLines lines(head);
  while (lines.next()) {
    const std::string_view t = trim_left(lines.text);
    if (t.empty() || t[0] == '%') continue;
    const LineRef at{file, lines.number, lines.text};
    Tokenizer tokens(t, false);
    std::string_view n_token, m_token, fmt, ncon_token, extra;
    if (!tokens.next(n_token) || !tokens.next(m_token)) {
      throw_line_error(at, "METIS header must be 'n m [fmt [ncon]]'");
    }
    header.declared_nodes = parse_id(n_token, at, "vertex count", 0, -1);
    header.declared_entries = parse_id(m_token, at, "edge count", 0, -1);
    bool vertex_weights = false;
    if (tokens.next(fmt)) {
      bool ok = fmt.size() <= 3;
      for (char c : fmt) ok = ok && (c == '0' || c == '1');
      if (!ok) {
        throw_line_error(at, "METIS fmt '" + excerpt(fmt) + "' must be up to 3 binary digits (e.g. 1, 11, 011, 100)");
      }
      const std::string digits = std::string(3 - fmt.size(), '0') + std::string(fmt);
      header.metis_vertex_size = digits[0] == '1';
      vertex_weights = digits[1] == '1';
      header.metis_edge_weights = digits[2] == '1';
    }
    header.metis_ncon = vertex_weights ? 1 : 0;
    if (tokens.next(ncon_token)) {
      const std::int64_t ncon = parse_id(ncon_token, at, "METIS ncon", 1, 1000000);
      if (!vertex_weights) {
        throw_line_error(at, "METIS ncon is given but fmt '" + excerpt(fmt) + "' has no vertex weights (middle digit)");
      }
      header.metis_ncon = static_cast<int>(ncon);
    }
    if (tokens.next(extra)) throw_line_error(at, "METIS header must be 'n m [fmt [ncon]]' (extra columns)");
    header.has_weights = header.metis_edge_weights && weight_column_option != -1;
    header.data_offset = lines.next_offset;
    header.data_first_line = lines.number + 1;
    return header;
  }
  throw_file_error(file, "no METIS header line in the first 1 MiB (expected 'n m [fmt [ncon]]')");
}

std::int64_t metis_records(std::string_view chunk) {
  std::int64_t records = 0;
  for_each_line(chunk, [&](std::string_view line, std::int64_t) {
    if (!is_comment(line)) ++records;
  });
  return records;
}

void parse_metis(const FileHeader& header, std::string_view chunk, const ChunkContext& ctx, ParsedChunk& out) {
  const std::int64_t n = header.declared_nodes;
  const int skip = (header.metis_vertex_size ? 1 : 0) + header.metis_ncon;
  const bool edge_weights = header.metis_edge_weights;
  const bool use_weights = header.has_weights;
  std::int64_t vertex = ctx.records_before;
  for_each_line(chunk, [&](std::string_view line, std::int64_t index) {
    if (is_comment(line)) return;
    ++vertex;
    ++out.records;
    Tokenizer tokens(line, false);
    std::string_view token;
    if (!tokens.next(token)) return;  // an empty line: an isolated vertex (also past vertex n)
    const LineRef at{ctx.file_name, ctx.first_line + index, line};
    if (vertex > n) {
      throw_line_error(at, "vertex line " + std::to_string(vertex) + " but the METIS header declares " +
                               std::to_string(n) + " vertices");
    }
    for (int i = 1; i < skip; ++i) {
      if (!tokens.next(token)) {
        throw_line_error(at, "too few columns: the METIS fmt puts " + std::to_string(skip) +
                                 " vertex size/weight values before the neighbours");
      }
    }
    if (skip > 0 && !tokens.next(token)) return;  // vertex size/weights only: no neighbours
    do {
      const std::int64_t neighbour = parse_id(token, at, "node id", 1, n);
      double w = 1.0;
      if (edge_weights) {
        std::string_view weight;
        if (!tokens.next(weight)) {
          throw_line_error(at, "neighbour " + std::to_string(neighbour) +
                                   " has no edge weight (the METIS fmt says 'neighbour weight' pairs)");
        }
        if (use_weights) w = parse_weight(weight, at);
      }
      add_arc(out, vertex, neighbour, w, ctx.keep_self_loops);
    } while (tokens.next(token));
  });
}

}  // namespace graphrf::detail
