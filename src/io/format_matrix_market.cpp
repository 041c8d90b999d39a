// Matrix Market coordinate files: the banner "%%MatrixMarket matrix coordinate FIELD SYMMETRY" (FIELD real,
// integer or pattern; SYMMETRY general or symmetric; case-insensitive), '%' comment lines, the size line
// "rows cols nnz" (rows == cols: a graph), then one entry "i j [value]" per line with 1-based i, j.
// Symmetric files are returned as stored (one triangle); FileHeader::symmetric tells the loader to mirror.
#include <cstdint>
#include <string>
#include <string_view>

#include "format_parsers.hpp"
#include "format_text.hpp"

namespace graphrf::detail {

namespace {

inline bool is_comment_or_blank(std::string_view trimmed) { return trimmed.empty() || trimmed[0] == '%'; }

}  // namespace

FileHeader matrix_market_header(std::string_view head, const std::string& file, int weight_column_option) {
  FileHeader header;
  HeadLines lines(head);
  if (!lines.next() || !istarts_with(lines.text, "%%MatrixMarket")) {
    if (lines.number == 0) throw_file_error(file, "empty file or no complete first line: expected a MatrixMarket banner");
    throw_line_error(LineRef{file, lines.number, lines.text},
                     "not a MatrixMarket file: the first line must be '%%MatrixMarket matrix coordinate real "
                     "general' or similar");
  }
  const LineRef banner{file, lines.number, lines.text};
  Tokenizer tokens(lines.text, false);
  std::string_view magic, object, layout, field, symmetry, extra;
  tokens.next(magic);
  if (!iequals(magic, "%%MatrixMarket")) throw_line_error(banner, "malformed MatrixMarket banner");
  if (!tokens.next(object) || !tokens.next(layout) || !tokens.next(field) || !tokens.next(symmetry)) {
    throw_line_error(banner, "MatrixMarket banner needs 4 words: matrix coordinate FIELD SYMMETRY");
  }
  if (tokens.next(extra)) throw_line_error(banner, "unexpected words after the MatrixMarket banner's 4 words");
  if (!iequals(object, "matrix")) {
    throw_line_error(banner, "MatrixMarket object '" + excerpt(object) + "' is not supported (expected 'matrix')");
  }
  if (iequals(layout, "array")) {
    throw_line_error(banner, "MatrixMarket 'array' (dense) format is not supported: a graph needs 'coordinate'");
  }
  if (!iequals(layout, "coordinate")) {
    throw_line_error(banner, "MatrixMarket format '" + excerpt(layout) + "' is not supported (expected 'coordinate')");
  }
  bool pattern = false;
  header.integer_values = iequals(field, "integer");
  if (iequals(field, "pattern")) {
    pattern = true;
  } else if (iequals(field, "complex")) {
    throw_line_error(banner, "MatrixMarket 'complex' values are not supported (expected real, integer or pattern)");
  } else if (!iequals(field, "real") && !iequals(field, "integer")) {
    throw_line_error(banner, "MatrixMarket field '" + excerpt(field) +
                                 "' is not supported (expected real, integer or pattern)");
  }
  if (iequals(symmetry, "symmetric")) {
    header.symmetric = true;
  } else if (iequals(symmetry, "hermitian") || iequals(symmetry, "skew-symmetric")) {
    throw_line_error(banner, "MatrixMarket '" + excerpt(symmetry) +
                                 "' matrices are not supported (expected general or symmetric)");
  } else if (!iequals(symmetry, "general")) {
    throw_line_error(banner, "MatrixMarket symmetry '" + excerpt(symmetry) +
                                 "' is not supported (expected general or symmetric)");
  }

  while (lines.next()) {
    if (is_comment_or_blank(trim_left(lines.text))) continue;
    const LineRef at{file, lines.number, lines.text};
    Tokenizer size(lines.text, false);
    std::string_view r, c, n, more;
    if (!size.next(r) || !size.next(c) || !size.next(n)) {
      throw_line_error(at, "MatrixMarket size line must be 'rows cols nnz'");
    }
    if (size.next(more)) throw_line_error(at, "MatrixMarket size line must be 'rows cols nnz' (extra columns)");
    const std::int64_t rows = parse_id(r, at, "row count", 0, -1);
    const std::int64_t cols = parse_id(c, at, "column count", 0, -1);
    const std::int64_t nnz = parse_id(n, at, "entry count", 0, -1);
    if (rows != cols) {
      throw_line_error(at, "matrix is " + std::to_string(rows) + " x " + std::to_string(cols) +
                               ": a graph's adjacency matrix must be square");
    }
    header.declared_nodes = rows;
    header.declared_entries = nnz;
    header.has_weights = !pattern && weight_column_option != -1;
    header.data_offset = lines.next_offset;
    header.data_first_line = lines.number + 1;
    return header;
  }
  throw_file_error(file, "no MatrixMarket size line in the first 1 MiB (expected 'rows cols nnz' after the banner)");
}

std::int64_t matrix_market_records(std::string_view chunk) {
  std::int64_t records = 0;
  for_each_line(chunk, [&](std::string_view line, std::int64_t) {
    if (!is_comment_or_blank(trim_left(line))) ++records;
  });
  return records;
}

void parse_matrix_market(const FileHeader& header, std::string_view chunk, const ChunkContext& ctx,
                         ParsedChunk& out) {
  const std::int64_t n = header.declared_nodes;
  const bool weights = header.has_weights;
  for_each_line(chunk, [&](std::string_view line, std::int64_t index) {
    if (is_comment_or_blank(trim_left(line))) return;
    ++out.records;
    const LineRef at{ctx.file_name, ctx.first_line + index, line};
    Tokenizer tokens(line, false);
    std::string_view a, b, value;
    if (!tokens.next(a) || !tokens.next(b) || (weights && !tokens.next(value))) {
      throw_line_error(at, weights ? "too few columns: expected a MatrixMarket entry 'row col value'"
                                   : "too few columns: expected a MatrixMarket entry 'row col'");
    }
    const std::int64_t i = parse_id(a, at, "node id", 1, n);
    const std::int64_t j = parse_id(b, at, "node id", 1, n);
    std::int64_t integer = 0;
    const NumberStatus as_integer = weights && header.integer_values ? scan_int(value, integer) : NumberStatus::ok;
    if (as_integer == NumberStatus::invalid || as_integer == NumberStatus::trailing) {
      throw_line_error(at, "value '" + excerpt(value.substr(0, 40)) +
                               "' is not an integer, but the banner declares 'integer' values (declare 'real' to read it)");
    }
    const double w = weights ? parse_weight(value, at) : 1.0;
    add_arc(out, i, j, w, ctx.keep_self_loops);
  });
}

}  // namespace graphrf::detail
