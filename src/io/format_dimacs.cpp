// DIMACS (9th challenge, shortest paths) .gr files: 'c' comment lines, one problem line "p sp N M" (any
// problem word is accepted), then arcs "a u v w" with 1-based u, v and weight w > 0 (integers in road
// networks; reals are accepted). Any other line type is an error.
#include <cstdint>
#include <string>
#include <string_view>

#include "format_parsers.hpp"
#include "format_text.hpp"

namespace graphrf::detail {

namespace {

inline bool is_comment_or_blank(std::string_view trimmed) { return trimmed.empty() || trimmed[0] == 'c'; }

}  // namespace

bool parse_dimacs_problem_line(std::string_view line, std::string_view& word, std::int64_t& nodes,
                               std::int64_t& arcs) {
  Tokenizer tokens(line, false);
  std::string_view p, n, m, extra;
  if (!tokens.next(p) || p != "p" || !tokens.next(word) || !tokens.next(n) || !tokens.next(m)) return false;
  if (tokens.next(extra)) return false;
  return scan_int(n, nodes) == NumberStatus::ok && scan_int(m, arcs) == NumberStatus::ok && nodes >= 0 && arcs >= 0;
}

FileHeader dimacs_header(std::string_view head, const std::string& file, int weight_column_option) {
  FileHeader header;
  HeadLines lines(head);
  while (lines.next()) {
    const std::string_view t = trim_left(lines.text);
    if (is_comment_or_blank(t)) continue;
    std::string_view word;
    std::int64_t nodes = 0, arcs = 0;
    if (!parse_dimacs_problem_line(t, word, nodes, arcs)) {
      throw_line_error(LineRef{file, lines.number, lines.text},
                       t[0] == 'p' ? "malformed DIMACS problem line: expected 'p sp NODES ARCS'"
                                   : "expected the DIMACS problem line 'p sp NODES ARCS' before any other line");
    }
    header.declared_nodes = nodes;
    header.declared_entries = arcs;
    header.has_weights = weight_column_option != -1;
    header.data_offset = lines.next_offset;
    header.data_first_line = lines.number + 1;
    return header;
  }
  throw_file_error(file, "no DIMACS problem line in the first 1 MiB (expected 'p sp NODES ARCS')");
}

std::int64_t dimacs_records(std::string_view chunk) {
  std::int64_t records = 0;
  for_each_line(chunk, [&](std::string_view line, std::int64_t) {
    if (!is_comment_or_blank(trim_left(line))) ++records;
  });
  return records;
}

void parse_dimacs(const FileHeader& header, std::string_view chunk, const ChunkContext& ctx, ParsedChunk& out) {
  const std::int64_t n = header.declared_nodes;
  const bool weights = header.has_weights;
  for_each_line(chunk, [&](std::string_view line, std::int64_t index) {
    const std::string_view t = trim_left(line);
    if (is_comment_or_blank(t)) return;
    ++out.records;
    const LineRef at{ctx.file_name, ctx.first_line + index, line};
    Tokenizer tokens(t, false);
    std::string_view kind, a, b, value;
    tokens.next(kind);
    if (kind != "a") {
      if (kind == "p") throw_line_error(at, "a second DIMACS problem line");
      throw_line_error(at, "unexpected DIMACS line type '" + excerpt(kind.substr(0, 20)) +
                               "' (expected 'a u v w' arcs or 'c' comments)");
    }
    if (!tokens.next(a) || !tokens.next(b) || (weights && !tokens.next(value))) {
      throw_line_error(at, "too few columns: expected a DIMACS arc 'a u v w'");
    }
    const std::int64_t u = parse_id(a, at, "node id", 1, n);
    const std::int64_t v = parse_id(b, at, "node id", 1, n);
    const double w = weights ? parse_weight(value, at) : 1.0;
    add_arc(out, u, v, w, ctx.keep_self_loops);
  });
}

}  // namespace graphrf::detail
