// Edge lists (SNAP, KONECT, TSV, CSV): one edge "u v [more columns]" per line, columns separated by blanks
// or commas. Blank lines and lines starting with '#' or '%' are skipped. A first non-comment line whose first
// two columns do not start like numbers is a column-name header ("u,v,key,length_m,weight"); it is skipped
// by moving data_offset past it. Ids are non-negative 64-bit integers; the weight, if any, is the column
// chosen by parse_header.
#include <cstdint>
#include <string>
#include <string_view>

#include "format_parsers.hpp"
#include "format_text.hpp"

namespace graphrf::detail {

namespace {

inline bool is_comment_or_blank(std::string_view trimmed) {
  return trimmed.empty() || trimmed[0] == '#' || trimmed[0] == '%';
}

// Column-name headers name the weight column "weight", "w" or "value" (quotes and case ignored).
bool names_weight(std::string_view name) {
  name = trim(name);
  if (name.size() >= 2 && (name.front() == '"' || name.front() == '\'') && name.back() == name.front()) {
    name = trim(name.substr(1, name.size() - 2));
  }
  return iequals(name, "weight") || iequals(name, "w") || iequals(name, "value");
}

}  // namespace

FileHeader edge_list_header(std::string_view head, const std::string& file, int weight_column_option) {
  FileHeader header;
  HeadLines lines(head);
  header.data_offset = lines.start_offset();
  int named_weight_column = 0;
  int first_data_columns = -1;
  std::int64_t first_data_line = 0;
  while (lines.next()) {
    const std::string_view t = trim_left(lines.text);
    if (is_comment_or_blank(t)) continue;
    Tokenizer tokens(t, true);
    std::string_view first, second;
    tokens.next(first);
    const bool has_second = tokens.next(second);
    const bool is_header = header.skipped_header_line == 0 && first_data_columns < 0 && !looks_numeric(first) &&
                           (!has_second || !looks_numeric(second));
    if (!is_header) {
      first_data_columns = count_tokens(t, true);
      first_data_line = lines.number;
      break;
    }
    header.skipped_header_line = lines.number;
    header.data_offset = lines.next_offset;
    header.data_first_line = lines.number + 1;
    Tokenizer names(t, true);
    std::string_view name;
    for (int column = 1; names.next(name); ++column) {
      if (column >= 3 && names_weight(name)) {
        named_weight_column = column;
        break;
      }
    }
  }
  if (first_data_columns < 0 && static_cast<std::int64_t>(head.size()) >= kFormatHeadBytes) {
    // The weight column is decided from the first edge line; one that does not end within the head cannot be.
    throw_file_error(file, "line " + std::to_string(lines.number + 1) +
                               " is longer than 1 MiB (or no edge line starts in the first 1 MiB): not an edge list");
  }
  if (weight_column_option > 0) {
    header.weight_column = weight_column_option;
  } else if (weight_column_option == 0) {
    if (named_weight_column > 0) {
      header.weight_column = named_weight_column;
    } else if (first_data_columns >= 3) {
      header.weight_column = 3;
    }
  }
  header.has_weights = header.weight_column > 0;
  if (weight_column_option == 0 && !header.has_weights) header.unweighted_by_first_line = first_data_line;
  return header;
}

std::int64_t edge_list_records(std::string_view chunk) {
  std::int64_t records = 0;
  for_each_line(chunk, [&](std::string_view line, std::int64_t) {
    if (!is_comment_or_blank(trim_left(line))) ++records;
  });
  return records;
}

void parse_edge_list(const FileHeader& header, std::string_view chunk, const ChunkContext& ctx, ParsedChunk& out) {
  const int weight_column = header.has_weights ? header.weight_column : 0;
  const std::int64_t hi = header.declared_nodes;  // -1 for edge lists: no upper bound
  const std::string weight_where = " in column " + std::to_string(weight_column);
  for_each_line(chunk, [&](std::string_view line, std::int64_t index) {
    const std::string_view t = trim_left(line);
    if (is_comment_or_blank(t)) return;
    ++out.records;
    const LineRef at{ctx.file_name, ctx.first_line + index, line};
    Tokenizer tokens(t, true);
    std::string_view a, b;
    tokens.next(a);
    if (!looks_numeric(a) && !a.empty()) {
      throw_line_error(at, "not an edge line 'u v [weight]' (a column-name header is only allowed before the "
                           "first edge)");
    }
    if (!tokens.next(b)) throw_line_error(at, "too few columns: expected 'u v [weight]'");
    const std::int64_t u = parse_id(a, at, "node id", 0, hi);
    const std::int64_t v = parse_id(b, at, "node id", 0, hi);
    double w = 1.0;
    std::string_view extra;
    if (header.unweighted_by_first_line > 0 && tokens.next(extra)) {
      throw_line_error(at, "3 or more columns, but the first edge line (line " +
                               std::to_string(header.unweighted_by_first_line) +
                               ") has 2, so the file was read without weights and column 3 would be ignored; "
                               "give --weight-column 3 to read weights or --weight-column -1 to ignore extra columns");
    }
    if (weight_column > 0) {
      std::string_view token;
      int column = 2;
      while (column < weight_column && tokens.next(token)) ++column;
      if (column < weight_column) {
        throw_line_error(at, "too few columns: the weight is column " + std::to_string(weight_column) +
                                 " but the line has " + std::to_string(column));
      }
      w = parse_weight(token, at, weight_where);
    }
    add_arc(out, u, v, w, ctx.keep_self_loops);
  });
}

}  // namespace graphrf::detail
