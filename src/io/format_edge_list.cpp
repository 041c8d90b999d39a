// Edge lists (SNAP, KONECT, TSV, CSV): one edge "u v [more columns]" per line, columns separated by blanks
// or commas. Blank lines and lines starting with '#' or '%' are skipped. A first non-comment line that is a
// column-name header ("u,v,key,length_m,weight"; the rule depends on --ids, see parse_header) is skipped by
// moving data_offset past it. Ids are non-negative 64-bit integers, or with string ids any token (its bytes,
// quotes included); the weight, if any, is the column chosen by parse_header.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

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

std::string_view unquoted(std::string_view name) {
  name = trim(name);
  if (name.size() >= 2 && (name.front() == '"' || name.front() == '\'') && name.back() == name.front())
    name = trim(name.substr(1, name.size() - 2));
  return name;
}

// A line naming both endpoint columns the usual way: with string ids only such a line is a header.
bool names_endpoints(std::string_view first, std::string_view second) {
  static constexpr std::string_view kSources[] = {"source", "src", "from", "u", "node1", "node_1", "id1", "head", "start"};
  static constexpr std::string_view kTargets[] = {"target", "dst", "dest", "destination", "to", "v", "node2", "node_2",
                                                  "id2", "tail", "end"};
  first = unquoted(first);
  second = unquoted(second);
  const auto is_one_of = [](std::string_view name, const auto& list) {
    return std::any_of(std::begin(list), std::end(list), [&](std::string_view known) { return iequals(name, known); });
  };
  return is_one_of(first, kSources) && is_one_of(second, kTargets);
}

bool is_id_integer(std::string_view token) {
  std::int64_t id = 0;
  return scan_int(token, id) == NumberStatus::ok && id >= 0;
}

// Whether the next edge line of the head (after the current one) starts with a numeric id.
bool next_line_is_numeric(HeadLines lines) {
  while (lines.next()) {
    const std::string_view t = trim_left(lines.text);
    if (is_comment_or_blank(t)) continue;
    Tokenizer tokens(t, true);
    std::string_view first;
    tokens.next(first);
    return looks_numeric(first);
  }
  return false;
}

// A number written with a decimal comma in a blank-separated line ("0<TAB>1<TAB>1,5"): the comma splits it, so
// the token is followed directly by ',' and a digit while blanks alone separate it from the column before.
// Returns the number as written ("1,5"), or "" when the token is not such a number.
std::string_view decimal_comma_number(std::string_view line, std::string_view token) {
  if (token.empty()) return {};
  const char* const end = line.data() + line.size();
  const char* after = token.data() + token.size();
  if (!(end - after >= 2 && after[0] == ',' && is_digit(after[1]))) return {};
  const char* before = token.data();
  while (before > line.data() && is_blank(before[-1])) --before;
  if (before == token.data() || before == line.data() || before[-1] == ',') return {};
  const char* number_end = after + 1;
  while (number_end < end && !is_blank(*number_end) && *number_end != ',') ++number_end;
  return std::string_view(token.data(), static_cast<std::size_t>(number_end - token.data()));
}

// Integer mode: a node id that is not an integer names the option that would read it, and under --ids auto
// the first edge line that made the ids integers.
[[noreturn]] void throw_not_integer_id(const LineRef& at, std::string_view token, NumberStatus status,
                                       std::int64_t integer_ids_by_first_line) {
  if (integer_ids_by_first_line > 0 && status != NumberStatus::ok)
    throw_line_error(at, "node id '" + excerpt(token) + "' is not a non-negative integer, but the first edge line (line " +
                             std::to_string(integer_ids_by_first_line) +
                             ") has integer ids, so graph.ids auto reads integers; give graph.ids string to read every id as a name");
  if (status == NumberStatus::invalid || status == NumberStatus::trailing)
    throw_line_error(at, "node id '" + excerpt(token) +
                             "' is not an integer (read with graph.ids integer; graph.ids string or auto reads node names)");
  throw_bad_integer(at, "node id", token, status);
}

}  // namespace

FileHeader edge_list_header(std::string_view head, const std::string& file, int weight_column_option, IdMode ids) {
  FileHeader header;
  header.ids = ids;
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
    const bool words = header.skipped_header_line == 0 && first_data_columns < 0 && !looks_numeric(first) &&
                       (!has_second || !looks_numeric(second));
    const bool named = words && has_second && names_endpoints(first, second);
    bool is_header = false;
    switch (ids) {
      case IdMode::integer: is_header = words; break;
      case IdMode::string: is_header = named; break;
      case IdMode::automatic: is_header = named || (words && next_line_is_numeric(lines)); break;
    }
    if (!is_header) {
      first_data_columns = count_tokens(t, true);
      first_data_line = lines.number;
      // --ids auto is decided here, once, on the first edge line: a later line cannot renumber the graph.
      if (ids == IdMode::automatic) {
        const bool integers = is_id_integer(first) && (!has_second || is_id_integer(second));
        header.ids = integers ? IdMode::integer : IdMode::string;
        if (integers) header.integer_ids_by_first_line = lines.number;
      }
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
  if (header.ids == IdMode::automatic) header.ids = IdMode::integer;  // no edge line: nothing to name
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

namespace {

// The ids of a chunk as integers (ordered by value) or as names: local indices into the chunk's distinct
// names, renumbered in ascending byte order once the chunk is parsed.
class IdReader {
 public:
  IdReader(const FileHeader& header)
      : strings_(header.ids == IdMode::string), hi_(header.declared_nodes), by_first_line_(header.integer_ids_by_first_line) {}

  std::int64_t operator()(std::string_view token, const LineRef& at) {
    if (!strings_) {
      std::int64_t id = 0;
      const NumberStatus status = scan_int(token, id);
      if (status != NumberStatus::ok) throw_not_integer_id(at, token, status, by_first_line_);
      if (id < 0 && by_first_line_ > 0) throw_not_integer_id(at, token, NumberStatus::invalid, by_first_line_);
      if (id < 0 || (hi_ >= 0 && id > hi_)) throw_id_out_of_range(at, "node id", id, 0, hi_);
      return id;
    }
    if (token.empty()) throw_line_error(at, "empty node id");
    const auto [it, inserted] = index_.try_emplace(token, static_cast<std::int64_t>(distinct_.size()));
    if (inserted) distinct_.push_back(token);
    return it->second;
  }

  // String ids: the chunk's names in byte order, and arcs renumbered to match.
  void finish(ParsedChunk& out) {
    if (!strings_) return;
    std::vector<std::int64_t> order(distinct_.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
      return distinct_[static_cast<std::size_t>(a)] < distinct_[static_cast<std::size_t>(b)];
    });
    std::vector<std::int64_t> position(order.size());
    out.names.clear();
    for (std::size_t k = 0; k < order.size(); ++k) {
      position[static_cast<std::size_t>(order[k])] = static_cast<std::int64_t>(k);
      out.names.push_back(distinct_[static_cast<std::size_t>(order[k])]);
    }
    for (auto& arc : out.arcs) {
      arc.u = position[static_cast<std::size_t>(arc.u)];
      arc.v = position[static_cast<std::size_t>(arc.v)];
    }
  }

 private:
  bool strings_;
  std::int64_t hi_;
  std::int64_t by_first_line_;
  std::unordered_map<std::string_view, std::int64_t> index_;
  std::vector<std::string_view> distinct_;  // views into the chunk, in order of first appearance
};

}  // namespace

void parse_edge_list(const FileHeader& header, std::string_view chunk, const ChunkContext& ctx, ParsedChunk& out) {
  const int weight_column = header.has_weights ? header.weight_column : 0;
  const std::string weight_where = " in column " + std::to_string(weight_column);
  IdReader read_id(header);
  for_each_line(chunk, [&](std::string_view line, std::int64_t index) {
    const std::string_view t = trim_left(line);
    if (is_comment_or_blank(t)) return;
    ++out.records;
    const LineRef at{ctx.file_name, ctx.first_line + index, line};
    Tokenizer tokens(t, true);
    std::string_view a, b;
    tokens.next(a);
    if (!tokens.next(b)) throw_line_error(at, "too few columns: expected 'u v [weight]'");
    const std::int64_t u = read_id(a, at);
    const std::int64_t v = read_id(b, at);
    double w = 1.0;
    std::string_view extra;
    if (header.unweighted_by_first_line > 0 && tokens.next(extra)) {
      throw_line_error(at, "3 or more columns, but the first edge line (line " +
                               std::to_string(header.unweighted_by_first_line) +
                               ") has 2, so the file was read without weights and column 3 would be ignored; "
                               "give graph.weight_column 3 to read weights or graph.weight_column -1 to ignore extra columns");
    }
    if (weight_column > 0) {
      std::string_view token;
      int column = 2;
      while (column < weight_column && tokens.next(token)) ++column;
      if (column < weight_column) {
        throw_line_error(at, "too few columns: the weight is column " + std::to_string(weight_column) +
                                 " but the line has " + std::to_string(column));
      }
      if (const std::string_view number = decimal_comma_number(t, token); !number.empty()) {
        throw_line_error(at, "weight '" + excerpt(number) + "' in column " + std::to_string(weight_column) +
                                 " has a decimal comma, which separates columns: write it with a decimal point");
      }
      w = parse_weight(token, at, weight_where);
    }
    add_arc(out, u, v, w, ctx.keep_self_loops);
  });
  read_id.finish(out);
}

}  // namespace graphrf::detail
