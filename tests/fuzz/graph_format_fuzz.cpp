// libFuzzer target for one graph text format (GRAPHRF_FUZZ_FORMAT names it): the bytes are a whole file. Checks,
// beyond "no crash, no sanitizer report, no hang": every failure is an InputError; the header's data offset
// lies inside the file; and parsing the data region split at a line boundary gives exactly what parsing it
// whole gives (the same arcs, counts and, for bad input, the same first error message), which is the
// property the parallel loader relies on.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "graphrf/core/error.hpp"
#include "graphrf/io/graph_formats.hpp"

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

bool same_arcs(const ParsedChunk& whole, const ParsedChunk& first, const ParsedChunk& second) {
  if (whole.arcs.size() != first.arcs.size() + second.arcs.size()) return false;
  for (std::size_t i = 0; i < whole.arcs.size(); ++i) {
    const graphrf::Arc& a = whole.arcs[i];
    const graphrf::Arc& b = i < first.arcs.size() ? first.arcs[i] : second.arcs[i - first.arcs.size()];
    // Weights are compared bitwise (NaN never passes the parser, so == is exact here).
    if (a.u != b.u || a.v != b.v || !(a.w == b.w)) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  constexpr GraphFormat format = GraphFormat::GRAPHRF_FUZZ_FORMAT;
  const std::string_view file(reinterpret_cast<const char*>(data), size);
  const std::string_view head = file.substr(0, static_cast<std::size_t>(graphrf::kFormatHeadBytes));
  FileHeader header;
  try {
    (void)graphrf::detect_format("fuzz.input", head);
    header = graphrf::parse_header(format, head, "fuzz.input", 0);
  } catch (const graphrf::InputError&) {
    return 0;
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

  const Outcome whole = parse(format, header, body, whole_context);
  const Outcome a = parse(format, header, first, whole_context);
  const Outcome b = a.error.empty() ? parse(format, header, second, second_context) : Outcome{};
  const std::string& split_error = a.error.empty() ? b.error : a.error;
  if (whole.error != split_error) property_failed("the first error differs between whole and split parsing");
  if (!whole.error.empty()) return 0;
  if (!same_arcs(whole.parsed, a.parsed, b.parsed)) property_failed("arcs differ between whole and split parsing");
  if (whole.parsed.self_loops_dropped != a.parsed.self_loops_dropped + b.parsed.self_loops_dropped)
    property_failed("self-loop counts differ");
  if (whole.parsed.records != graphrf::count_records(format, header, body)) property_failed("record count");
  return 0;
}
