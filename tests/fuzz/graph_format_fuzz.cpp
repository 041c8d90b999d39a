// libFuzzer target for one graph text format (GRAPHRF_FUZZ_FORMAT names it; GRAPHRF_FUZZ_STRING_IDS=1 reads
// edge-list ids as --ids auto and as --ids string): the bytes are a whole file. Checks, beyond "no crash, no
// sanitizer report, no hang": every failure is an InputError; the header's data offset lies inside the file;
// and parsing the data region split at a line boundary gives exactly what parsing it whole gives (the same
// arcs, counts and, for bad input, the same first error message), which is the property the parallel loader
// relies on. GML has a loader protocol of its own (gml_format.hpp): split in two and in three, it must give
// the nodes, arcs and `directed` of the whole, or the same first error.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "gml_split_load.hpp"
#include "graphrf/core/error.hpp"
#include "graphrf/io/graph_formats.hpp"

#ifndef GRAPHRF_FUZZ_STRING_IDS
#define GRAPHRF_FUZZ_STRING_IDS 0
#endif

namespace {

using graphrf::ChunkContext;
using graphrf::FileHeader;
using graphrf::GraphFormat;
using graphrf::ParsedChunk;

[[noreturn]] void property_failed(const char* what) {
  std::fprintf(stderr, "graph_format_fuzz: property failed: %s\n", what);
  std::abort();
}

struct Outcome {
  ParsedChunk parsed;
  std::string error;  // empty: parsed
};

Outcome parse(GraphFormat format, const FileHeader& header, std::string_view chunk, const ChunkContext& context) {
  Outcome out;
  try {
    out.parsed = graphrf::parse_chunk(format, header, chunk, context);
  } catch (const graphrf::InputError& e) {
    out.error = e.what();
  }
  return out;
}

// An arc's endpoints: its ids, or with string ids the names they index in the chunk's names.
std::string endpoint(const ParsedChunk& chunk, std::int64_t id, bool string_ids) {
  return string_ids ? std::string(chunk.names[static_cast<std::size_t>(id)]) : std::to_string(id);
}

bool same_arcs(const ParsedChunk& whole, const ParsedChunk& first, const ParsedChunk& second, bool string_ids) {
  if (whole.arcs.size() != first.arcs.size() + second.arcs.size()) return false;
  for (std::size_t i = 0; i < whole.arcs.size(); ++i) {
    const graphrf::Arc& a = whole.arcs[i];
    const bool in_first = i < first.arcs.size();
    const ParsedChunk& part = in_first ? first : second;
    const graphrf::Arc& b = in_first ? first.arcs[i] : second.arcs[i - first.arcs.size()];
    // Weights are compared bitwise (NaN never passes the parser, so == is exact here).
    if (endpoint(whole, a.u, string_ids) != endpoint(part, b.u, string_ids) ||
        endpoint(whole, a.v, string_ids) != endpoint(part, b.v, string_ids) || !(a.w == b.w))
      return false;
  }
  return true;
}

bool sorted_distinct(const graphrf::NodeNames& names) {
  for (std::size_t k = 1; k < names.size(); ++k)
    if (!(names[k - 1] < names[k])) return false;
  return true;
}

// GML: whole, split in two at the middle line, and in three at the thirds.
void check_gml(std::string_view file) {
  std::vector<std::size_t> line_starts;
  for (std::size_t i = 0; i < file.size(); ++i)
    if (file[i] == '\n') line_starts.push_back(i + 1);
  const auto line_start_after = [&](std::size_t at) {
    for (std::size_t s : line_starts)
      if (s >= at) return s;
    return file.size();
  };
  const auto load = [&](const std::vector<std::size_t>& cuts, std::string& error) {
    graphrf::test::GmlLoaded out;
    try {
      out = graphrf::test::load_gml_split(file, cuts, "fuzz.input");
    } catch (const graphrf::InputError& e) {
      error = e.what();
    }
    return out;
  };
  std::string whole_error;
  const graphrf::test::GmlLoaded whole = load({}, whole_error);
  const std::vector<std::vector<std::size_t>> splits{
      {line_start_after(file.size() / 2)}, {line_start_after(file.size() / 3), line_start_after(2 * file.size() / 3)}};
  for (const auto& cuts : splits) {
    std::string error;
    const graphrf::test::GmlLoaded split = load(cuts, error);
    if (error != whole_error) property_failed("gml: the first error differs between whole and split parsing");
    if (!whole_error.empty()) continue;
    if (split.node_ids != whole.node_ids) property_failed("gml: node ids differ between whole and split parsing");
    if (split.labels != whole.labels || whole.labels.size() != whole.node_ids.size())
      property_failed("gml: node labels differ between whole and split parsing");
    if (split.arcs.size() != whole.arcs.size()) property_failed("gml: arc counts differ");
    for (std::size_t i = 0; i < whole.arcs.size(); ++i)
      if (split.arcs[i].u != whole.arcs[i].u || split.arcs[i].v != whole.arcs[i].v || !(split.arcs[i].w == whole.arcs[i].w))
        property_failed("gml: arcs differ between whole and split parsing");
    if (split.directed != whole.directed || split.self_loops_dropped != whole.self_loops_dropped)
      property_failed("gml: directed or self-loop counts differ");
  }
}

void check_line_format(std::string_view file, graphrf::IdMode ids);

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  constexpr GraphFormat format = GraphFormat::GRAPHRF_FUZZ_FORMAT;
  const std::string_view file(reinterpret_cast<const char*>(data), size);
  if constexpr (format == GraphFormat::gml) {
    try {
      (void)graphrf::detect_format("fuzz.input", file.substr(0, static_cast<std::size_t>(graphrf::kFormatHeadBytes)));
    } catch (const graphrf::InputError&) {
      return 0;
    }
    check_gml(file);
  } else if constexpr (GRAPHRF_FUZZ_STRING_IDS != 0) {
    check_line_format(file, graphrf::IdMode::automatic);
    check_line_format(file, graphrf::IdMode::string);
  } else {
    check_line_format(file, graphrf::IdMode::integer);
  }
  return 0;
}

namespace {

void check_line_format(std::string_view file, graphrf::IdMode ids) {
  constexpr GraphFormat format = GraphFormat::GRAPHRF_FUZZ_FORMAT;
  const std::string_view head = file.substr(0, static_cast<std::size_t>(graphrf::kFormatHeadBytes));
  const std::size_t size = file.size();
  FileHeader header;
  try {
    (void)graphrf::detect_format("fuzz.input", head);
    header = graphrf::parse_header(format, head, "fuzz.input", 0, ids);
  } catch (const graphrf::InputError&) {
    return;
  }
  if (header.data_offset < 0 || header.data_offset > static_cast<std::int64_t>(size)) property_failed("data offset");
  const std::string_view body = file.substr(static_cast<std::size_t>(header.data_offset));

  // Split after the '\n' nearest the middle (a line-aligned split, as the loader makes).
  std::size_t split = body.find('\n', body.size() / 2);
  split = split == std::string_view::npos ? body.size() : split + 1;
  const std::string_view first = body.substr(0, split), second = body.substr(split);

  if (format == GraphFormat::obj) header.declared_nodes = graphrf::count_records(format, header, body);
  ChunkContext whole_context{"fuzz.input", header.data_first_line, 0, false};
  ChunkContext second_context{"fuzz.input", header.data_first_line + graphrf::count_lines(first),
                              graphrf::count_records(format, header, first), false};
  if (graphrf::count_lines(first) + graphrf::count_lines(second) != graphrf::count_lines(body))
    property_failed("line counts of the halves");
  // --ids auto is decided once, by rank 0's header on the first edge line: every chunk parses with that decision.
  if (header.ids == graphrf::IdMode::automatic) property_failed("--ids auto left unresolved by the header");
  const bool string_ids = header.ids == graphrf::IdMode::string;

  const Outcome whole = parse(format, header, body, whole_context);
  const Outcome a = parse(format, header, first, whole_context);
  const Outcome b = a.error.empty() ? parse(format, header, second, second_context) : Outcome{};
  const std::string& split_error = a.error.empty() ? b.error : a.error;
  if (whole.error != split_error) property_failed("the first error differs between whole and split parsing");
  if (!whole.error.empty()) return;
  if (!same_arcs(whole.parsed, a.parsed, b.parsed, string_ids)) property_failed("arcs differ between whole and split parsing");
  if (string_ids && !(sorted_distinct(whole.parsed.names) && sorted_distinct(a.parsed.names) && sorted_distinct(b.parsed.names)))
    property_failed("a chunk's names are not distinct and in byte order");
  if (whole.parsed.self_loops_dropped != a.parsed.self_loops_dropped + b.parsed.self_loops_dropped)
    property_failed("self-loop counts differ");
  if (whole.parsed.records != graphrf::count_records(format, header, body)) property_failed("record count");
}

}  // namespace
