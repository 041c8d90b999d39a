#pragma once
// Test helpers for the graph format parsers: a loader simulation that parses a whole in-memory file split
// into line-aligned chunks exactly as the parallel loader does (count_lines / count_records, exclusive prefix
// sums, then parse_chunk), and a check that every 2- and 3-chunk split gives the same result (or the same
// error) as one chunk.
#include <gtest/gtest.h>

#include <algorithm>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "graphrf/core/error.hpp"
#include "graphrf/io/graph_formats.hpp"

namespace graphrf {

inline bool operator==(const Arc& a, const Arc& b) { return a.u == b.u && a.v == b.v && a.w == b.w; }
inline void PrintTo(const Arc& a, std::ostream* os) { *os << "(" << a.u << "," << a.v << "," << a.w << ")"; }

}  // namespace graphrf

namespace graphrf::test {

// An arc between named nodes (string ids), with the names as the file spells them.
struct NamedArc {
  std::string u, v;
  double w;
  bool operator==(const NamedArc&) const = default;
};
inline void PrintTo(const NamedArc& a, std::ostream* os) { *os << "(" << a.u << "," << a.v << "," << a.w << ")"; }

struct Loaded {
  FileHeader header;
  std::vector<Arc> arcs;            // integer ids
  std::vector<NamedArc> named_arcs;  // string ids
  std::int64_t self_loops_dropped = 0;
  std::int64_t lines = 0;
  std::int64_t records = 0;
};

struct LoadOptions {
  int weight_column = 0;
  bool keep_self_loops = false;
  IdMode ids = IdMode::integer;  // automatic is resolved over all chunks, as the loader does over ranks
};

// Parses `file` (the whole text, used as the head too) with its data region cut at the given byte offsets
// (relative to data_offset, ascending, each at a line start); chunks may be empty.
inline Loaded load(GraphFormat format, std::string_view file, const std::string& name,
                   const std::vector<std::size_t>& cuts = {}, LoadOptions options = {}) {
  Loaded out;
  out.header = parse_header(format, file, name, options.weight_column, options.ids);
  const std::string_view data = file.substr(static_cast<std::size_t>(out.header.data_offset));
  std::vector<std::string_view> chunks;
  std::size_t begin = 0;
  for (std::size_t cut : cuts) {
    chunks.push_back(data.substr(begin, cut - begin));
    begin = cut;
  }
  chunks.push_back(data.substr(begin));
  std::vector<std::int64_t> lines_before, records_before;
  std::int64_t lines = 0, records = 0;
  for (std::string_view chunk : chunks) {
    lines_before.push_back(lines);
    records_before.push_back(records);
    lines += count_lines(chunk);
    records += count_records(format, out.header, chunk);
  }
  if (format == GraphFormat::obj) out.header.declared_nodes = records;
  EXPECT_NE(out.header.ids, IdMode::automatic);  // parse_header decides --ids auto on the first edge line
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    ChunkContext ctx;
    ctx.file_name = name;
    ctx.first_line = out.header.data_first_line + lines_before[i];
    ctx.records_before = records_before[i];
    ctx.keep_self_loops = options.keep_self_loops;
    ParsedChunk part = parse_chunk(format, out.header, chunks[i], ctx);
    EXPECT_EQ(part.lines, count_lines(chunks[i]));
    EXPECT_EQ(part.records, count_records(format, out.header, chunks[i]));
    for (std::size_t k = 1; k < part.names.size(); ++k) EXPECT_LT(part.names[k - 1], part.names[k]);
    if (out.header.ids == IdMode::string) {
      for (const Arc& a : part.arcs)
        out.named_arcs.push_back({std::string(part.names[static_cast<std::size_t>(a.u)]),
                                  std::string(part.names[static_cast<std::size_t>(a.v)]), a.w});
    } else {
      out.arcs.insert(out.arcs.end(), part.arcs.begin(), part.arcs.end());
    }
    out.self_loops_dropped += part.self_loops_dropped;
    out.lines += part.lines;
    out.records += part.records;
  }
  EXPECT_EQ(out.lines, lines);
  return out;
}

// The InputError message of load(...), or "" when it succeeds.
inline std::string load_error(GraphFormat format, std::string_view file, const std::string& name,
                              const std::vector<std::size_t>& cuts = {}, LoadOptions options = {}) {
  try {
    load(format, file, name, cuts, options);
  } catch (const InputError& e) {
    return e.what();
  }
  return {};
}

// Offsets (relative to the data region) of every line start, plus the end.
inline std::vector<std::size_t> line_boundaries(std::string_view data) {
  std::vector<std::size_t> b{0};
  for (std::size_t i = 0; i < data.size(); ++i) {
    if (data[i] == '\n') b.push_back(i + 1);
  }
  if (b.back() != data.size()) b.push_back(data.size());
  return b;
}

// Every split of the data region into 2 and 3 line-aligned chunks (empty chunks included) must give the
// same arcs, counts, and error message as the whole.
inline void expect_split_invariant(GraphFormat format, std::string_view file, const std::string& name,
                                   LoadOptions options = {}) {
  SCOPED_TRACE(std::string("split invariance of ") + name);
  std::string whole_error;
  Loaded whole;
  try {
    whole = load(format, file, name, {}, options);
  } catch (const InputError& e) {
    whole_error = e.what();
  }
  const FileHeader header = parse_header(format, file, name, options.weight_column, options.ids);
  const auto bounds = line_boundaries(file.substr(static_cast<std::size_t>(header.data_offset)));
  auto check = [&](const std::vector<std::size_t>& cuts) {
    std::string where = "cuts";
    for (std::size_t c : cuts) {
      where += ' ';
      where += std::to_string(c);
    }
    SCOPED_TRACE(where);
    if (!whole_error.empty()) {
      EXPECT_EQ(load_error(format, file, name, cuts, options), whole_error);
      return;
    }
    const Loaded split = load(format, file, name, cuts, options);
    EXPECT_EQ(split.arcs, whole.arcs);
    EXPECT_EQ(split.named_arcs, whole.named_arcs);
    EXPECT_EQ(split.header.ids, whole.header.ids);
    EXPECT_EQ(split.self_loops_dropped, whole.self_loops_dropped);
    EXPECT_EQ(split.lines, whole.lines);
    EXPECT_EQ(split.records, whole.records);
  };
  for (std::size_t i = 0; i < bounds.size(); ++i) {
    check({bounds[i]});
    for (std::size_t j = i; j < bounds.size(); ++j) check({bounds[i], bounds[j]});
  }
}

// Checks that loading fails with an InputError naming name:line, containing `text`, on one line.
inline void expect_error(GraphFormat format, std::string_view file, const std::string& name, std::int64_t line,
                         const std::string& text, LoadOptions options = {}) {
  const std::string message = load_error(format, file, name, {}, options);
  ASSERT_FALSE(message.empty()) << "no InputError for\n" << file;
  const std::string location = line > 0 ? name + ":" + std::to_string(line) + ": " : name + ": ";
  EXPECT_EQ(message.rfind(location, 0), 0u) << message;
  EXPECT_NE(message.find(text), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

}  // namespace graphrf::test
