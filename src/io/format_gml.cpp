// GML, read in line-aligned chunks with the nesting carried between them (see gml_format.hpp).
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "format_text.hpp"
#include "graphrf/core/error.hpp"
#include "graphrf/io/gml_format.hpp"

namespace graphrf {

namespace {

using detail::LineRef;

// Records are node and edge blocks directly inside the graph block: depth 2.
constexpr std::size_t kRecordDepth = 2;

GmlBlock block_of(std::string_view key) {
  if (key == "graph") return GmlBlock::graph;
  if (key == "node") return GmlBlock::node;
  if (key == "edge") return GmlBlock::edge;
  return GmlBlock::other;
}

bool is_record(const std::vector<GmlBlock>& open) {
  return open.size() >= kRecordDepth && open[0] == GmlBlock::graph &&
         (open[1] == GmlBlock::node || open[1] == GmlBlock::edge);
}

bool is_key(std::string_view token) {
  if (token.empty() || !(std::isalpha(static_cast<unsigned char>(token[0])) || token[0] == '_')) return false;
  return std::all_of(token.begin(), token.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// The events of one line: open(block), close(), pair(key, value, quoted). A key and a scalar value share a
// line; a block's '[' may follow its key on a later line (Newman writes "graph" and "[" on two lines):
// `pending` carries such a key from line to line (and from chunk to chunk).
template <class Open, class Close, class Pair>
void for_each_event(std::string_view line, const LineRef& at, GmlPending& pending, Open open, Close close, Pair pair) {
  std::size_t i = 0;
  std::string_view key;
  auto expect_value = [&] { return !key.empty() || pending.waiting; };
  while (true) {
    while (i < line.size() && detail::is_blank(line[i])) ++i;
    if (i >= line.size()) break;
    const char c = line[i];
    if (c == '#' && !expect_value()) break;  // a comment to the end of the line
    if (c == '[') {
      if (!expect_value()) detail::throw_line_error(at, "'[' without a key before it");
      open(key.empty() ? pending.block : block_of(key));
      key = {};
      pending.waiting = false;
      ++i;
      continue;
    }
    if (c == ']') {
      if (!key.empty()) detail::throw_line_error(at, "key '" + detail::excerpt(key) + "' has no value before ']'");
      if (pending.waiting) detail::throw_line_error(at, "a key on an earlier line has no value before ']'");
      close();
      ++i;
      continue;
    }
    std::string_view token;
    bool quoted = false;
    if (c == '"') {
      const std::size_t end = line.find('"', i + 1);
      if (end == std::string_view::npos)
        detail::throw_line_error(at, "a string does not end on its line (strings spanning lines are not supported: the "
                                     "file is read in parallel by lines; put each string on one line)");
      token = line.substr(i + 1, end - i - 1);
      quoted = true;
      i = end + 1;
    } else {
      const std::size_t start = i;
      while (i < line.size() && !detail::is_blank(line[i]) && line[i] != '[' && line[i] != ']') ++i;
      token = line.substr(start, i - start);
    }
    if (pending.waiting) {
      detail::throw_line_error(at, "value '" + detail::excerpt(token) +
                                       "' is not on the line of its key (not supported: the file is read in parallel "
                                       "by lines; only a block's '[' may be on a later line than its key)");
    } else if (!key.empty()) {
      pair(key, token, quoted);
      key = {};
    } else if (!quoted && is_key(token)) {
      key = token;
    } else {
      detail::throw_line_error(at, "value '" + detail::excerpt(token) + "' without a key");
    }
  }
  if (!key.empty()) {
    pending.waiting = true;
    pending.block = block_of(key);
  }
}

}  // namespace

GmlTail gml_chunk_tail(std::string_view chunk) {
  GmlTail tail;
  std::string_view last;
  detail::for_each_line(chunk, [&](std::string_view line, std::int64_t) {
    const std::string_view t = detail::trim_left(line);
    if (!t.empty() && t[0] != '#') last = line;
  });
  if (last.data() == nullptr) return tail;
  tail.has_tokens = true;
  // The last line alone; a leading '[' may use a key waiting from before it (its kind does not matter here).
  GmlPending pending{detail::trim_left(last)[0] == '[', GmlBlock::other};
  const std::string none;
  try {
    for_each_event(
        last, LineRef{none, 0, last}, pending, [](GmlBlock) {}, [] {}, [](std::string_view, std::string_view, bool) {});
  } catch (const InputError&) {
    pending = GmlPending{};  // reported with its line by summarize_gml_chunk
  }
  tail.pending = pending;
  return tail;
}

GmlPending gml_pending_before(const std::vector<GmlTail>& tails, int rank) {
  for (int r = rank - 1; r >= 0; --r)
    if (tails[static_cast<std::size_t>(r)].has_tokens) return tails[static_cast<std::size_t>(r)].pending;
  return {};
}

GmlSummary summarize_gml_chunk(std::string_view chunk, const ChunkContext& context, GmlPending pending) {
  GmlSummary summary;
  detail::for_each_line(chunk, [&](std::string_view line, std::int64_t index) {
    const LineRef at{context.file_name, context.first_line + index, line};
    for_each_event(
        line, at, pending, [&](GmlBlock block) { summary.opens.push_back(block); },
        [&] {
          if (summary.opens.empty())
            ++summary.closes;
          else
            summary.opens.pop_back();
        },
        [](std::string_view, std::string_view, bool) {});
  });
  return summary;
}

std::vector<GmlBlock> gml_blocks_open_before(const std::vector<GmlSummary>& summaries, int rank) {
  std::vector<GmlBlock> open;
  for (int r = 0; r < rank; ++r) {
    const GmlSummary& s = summaries[static_cast<std::size_t>(r)];
    open.resize(open.size() - std::min<std::size_t>(open.size(), static_cast<std::size_t>(s.closes)));
    open.insert(open.end(), s.opens.begin(), s.opens.end());
  }
  return open;
}

bool gml_record_open_at_end(const std::vector<GmlBlock>& open_at_start, const GmlSummary& chunk) {
  const std::size_t kept = open_at_start.size() - std::min<std::size_t>(open_at_start.size(), static_cast<std::size_t>(chunk.closes));
  std::vector<GmlBlock> open(open_at_start.begin(), open_at_start.begin() + static_cast<std::ptrdiff_t>(kept));
  open.insert(open.end(), chunk.opens.begin(), chunk.opens.end());
  return is_record(open) && kept < kRecordDepth;  // the record was opened in this chunk
}

std::int64_t gml_record_end(std::string_view text, std::int64_t depth, std::int64_t record_depth, GmlPending pending) {
  // Only complete lines: a last line without '\n' may continue in text not yet read.
  std::int64_t offset = 0;
  std::int64_t found = -1;
  const std::string none;
  detail::for_each_line(text, [&](std::string_view line, std::int64_t) {
    const std::size_t length = line.size();
    const bool complete = static_cast<std::size_t>(offset) + length < text.size();
    if (found >= 0 || !complete) return;
    const LineRef at{none, 0, line};
    try {
      for_each_event(
          line, at, pending, [&](GmlBlock) { ++depth; }, [&] { --depth; }, [](std::string_view, std::string_view, bool) {});
    } catch (const InputError&) {
      // Reported with its line by the chunk that holds it.
    }
    const std::size_t next = text.find('\n', static_cast<std::size_t>(offset));
    offset = next == std::string_view::npos ? static_cast<std::int64_t>(text.size()) : static_cast<std::int64_t>(next) + 1;
    if (depth < record_depth) found = offset;
  });
  return found;
}

ParsedGml parse_gml_chunk(const FileHeader& header, std::string_view chunk, std::string_view extension,
                          const std::vector<GmlBlock>& open_at_start, GmlPending pending, const ChunkContext& context,
                          bool ends_file) {
  ParsedGml out;
  out.chunk.lines = count_lines(chunk);
  std::vector<GmlBlock> open = open_at_start;
  bool skipping = is_record(open);  // the rest of a record an earlier chunk opened and reads
  bool done = false;                // the extension's record has closed
  bool in_extension = false;
  struct Record {
    std::int64_t line = 0;
    std::int64_t id = -1, source = 0, target = 0;
    std::string label;
    bool has_label = false;
    bool has_id = false, has_source = false, has_target = false, has_weight = false, weighted_by_value = false;
    bool has_value_key = false;  // a `value` key was read (it may have lost to `weight`)
    double weight = 1;
  } record;
  bool in_record = false;
  std::string record_line_text;

  auto parse_int = [&](std::string_view value, bool quoted, const LineRef& at, std::string_view key) {
    std::int64_t v = 0;
    const auto status = detail::scan_int(value, v);
    if (quoted || status != detail::NumberStatus::ok)
      detail::throw_line_error(at, std::string(key) + " '" + detail::excerpt(value) + "' is not an integer");
    return v;
  };
  auto finish_record = [&](const LineRef& at) {
    const LineRef start{context.file_name, record.line, record_line_text};
    if (open[1] == GmlBlock::node) {
      if (!record.has_id) detail::throw_line_error(start, "node block without an id");
      out.node_ids.push_back(record.id);
      out.labels.push_back(record.label);
      ++out.chunk.records;
    } else {
      if (!record.has_source || !record.has_target)
        detail::throw_line_error(start, "edge block without a source and a target");
      detail::add_arc(out.chunk, record.source, record.target, record.weight, context.keep_self_loops);
      ++out.chunk.records;
    }
    (void)at;
  };

  auto process = [&](std::string_view text, std::int64_t first_line) {
    detail::for_each_line(text, [&](std::string_view line, std::int64_t index) {
      if (done) return;
      const LineRef at{context.file_name, first_line + index, line};
      for_each_event(
          line, at, pending,
          [&](GmlBlock block) {
            if (done) return;
            if (open.empty() && block == GmlBlock::graph && out.graph_lines.size() < 2) out.graph_lines.push_back(at.number);
            open.push_back(block);
            if (open.size() == kRecordDepth && is_record(open) && !skipping) {
              in_record = true;
              record = Record{};
              record.line = at.number;
              record_line_text = std::string(line);
            }
          },
          [&] {
            if (done) return;
            if (open.empty()) detail::throw_line_error(at, "']' closes no block");
            if (open.size() == kRecordDepth && is_record(open)) {
              if (skipping) {
                skipping = false;
              } else if (in_record) {
                finish_record(at);
                in_record = false;
                if (in_extension) done = true;
              }
            }
            open.pop_back();
          },
          [&](std::string_view key, std::string_view value, bool quoted) {
            if (done || skipping) return;
            if (open.size() == 1 && open[0] == GmlBlock::graph && key == "directed") {
              // Any `directed 1` makes the graph directed, however many `directed` keys follow: ranks OR
              // their chunks' flags, so the whole file must read the same way.
              if (value == "1") out.directed = true;
              return;
            }
            if (!in_record || open.size() != kRecordDepth) return;
            if (open[1] == GmlBlock::node) {
              if (key == "id") {
                if (record.has_id) detail::throw_line_error(at, "node block with a second id");
                record.id = parse_int(value, quoted, at, "node id");
                record.has_id = true;
              } else if (key == "label") {
                if (record.has_label) detail::throw_line_error(at, "node block with a second label");
                record.label = std::string(value);
                record.has_label = true;
              }
              return;
            }
            // A repeated key would leave the edge to whichever comes last: refused.
            if (key == "source") {
              if (record.has_source) detail::throw_line_error(at, "edge block with a second source");
              record.source = parse_int(value, quoted, at, "source");
              record.has_source = true;
            } else if (key == "target") {
              if (record.has_target) detail::throw_line_error(at, "edge block with a second target");
              record.target = parse_int(value, quoted, at, "target");
              record.has_target = true;
            } else if ((key == "weight" || key == "value") && header.has_weights) {
              if (key == "weight" && record.has_weight && !record.weighted_by_value)
                detail::throw_line_error(at, "edge block with a second weight");
              if (key == "value" && record.has_value_key) detail::throw_line_error(at, "edge block with a second value");
              if (key == "value") record.has_value_key = true;
              // `weight` wins over `value` when an edge has both.
              if (key == "value" && record.has_weight && !record.weighted_by_value) return;
              if (quoted) detail::throw_line_error(at, std::string(key) + " '" + detail::excerpt(value) + "' is not a number");
              record.weight = detail::parse_weight(value, at, std::string(" (edge ") + std::string(key) + ")");
              record.has_weight = true;
              record.weighted_by_value = key == "value";
            }
          });
    });
  };

  process(chunk, context.first_line);
  if (in_record && !extension.empty()) {
    in_extension = true;
    process(extension, context.first_line + out.chunk.lines);
  }
  if (in_record) {
    const LineRef start{context.file_name, record.line, record_line_text};
    detail::throw_line_error(start, std::string(open[1] == GmlBlock::node ? "node" : "edge") +
                                        " block not closed before the end of the file");
  }
  if (ends_file && pending.waiting)
    throw InputError(context.file_name + ": the file ends after a key that has no value");
  if (ends_file && !open.empty())
    throw InputError(context.file_name + ": the file ends inside " + std::to_string(open.size()) +
                     " open block(s) ('graph [' needs its ']')");
  return out;
}

void check_one_gml_graph(const std::string& file_name, const std::vector<std::int64_t>& graph_lines) {
  if (graph_lines.size() < 2) return;
  throw InputError(file_name + ":" + std::to_string(graph_lines[1]) + ": a second 'graph [' block (the first is on line " +
                   std::to_string(graph_lines[0]) + "); a file holds one graph: split it into one file per graph");
}

}  // namespace graphrf
