#pragma once
// GML parsed from an in-memory file cut at line-aligned offsets exactly as the parallel loader does over ranks
// (tails, summaries, blocks open before each chunk, the lines a chunk reads past its end to finish a record),
// without MPI: shared by the GML unit tests and the GML fuzz target. Throws the first InputError as
// collective_try would (the lowest chunk's, summaries before records).
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "graphrf/io/gml_format.hpp"

namespace graphrf::test {

struct GmlLoaded {
  std::vector<Arc> arcs;
  std::vector<std::int64_t> node_ids;
  std::vector<std::string> labels;  // in node_ids' order
  bool directed = false;
  std::int64_t self_loops_dropped = 0;
};

inline GmlLoaded load_gml_split(std::string_view file, const std::vector<std::size_t>& cuts,
                                const std::string& name = "net.gml", int weight_column = 0) {
  const FileHeader header = parse_header(GraphFormat::gml, file, name, weight_column);
  std::vector<std::size_t> bounds{0};
  bounds.insert(bounds.end(), cuts.begin(), cuts.end());
  bounds.push_back(file.size());
  const std::size_t chunks = bounds.size() - 1;
  const auto chunk_at = [&](std::size_t i) { return file.substr(bounds[i], bounds[i + 1] - bounds[i]); };
  std::vector<ChunkContext> contexts(chunks);
  std::int64_t line = 1;
  for (std::size_t i = 0; i < chunks; ++i) {
    contexts[i].file_name = name;
    contexts[i].first_line = line;
    line += count_lines(chunk_at(i));
  }
  std::vector<GmlTail> tails(chunks);
  for (std::size_t i = 0; i < chunks; ++i) tails[i] = gml_chunk_tail(chunk_at(i));
  std::vector<GmlSummary> summaries(chunks);
  for (std::size_t i = 0; i < chunks; ++i)
    summaries[i] = summarize_gml_chunk(chunk_at(i), contexts[i], gml_pending_before(tails, static_cast<int>(i)));
  GmlLoaded out;
  std::vector<std::int64_t> graph_lines;
  for (std::size_t i = 0; i < chunks; ++i) {
    const auto open = gml_blocks_open_before(summaries, static_cast<int>(i));
    const GmlPending pending = gml_pending_before(tails, static_cast<int>(i));
    std::string_view extension;
    if (gml_record_open_at_end(open, summaries[i])) {
      const std::size_t kept = open.size() - std::min<std::size_t>(open.size(), static_cast<std::size_t>(summaries[i].closes));
      const std::string_view rest = file.substr(bounds[i + 1]);
      const std::int64_t end = gml_record_end(rest, static_cast<std::int64_t>(kept + summaries[i].opens.size()), 2,
                                              tails[i].has_tokens ? tails[i].pending : pending);
      extension = end >= 0 ? rest.substr(0, static_cast<std::size_t>(end)) : rest;
    }
    const ParsedGml part = parse_gml_chunk(header, chunk_at(i), extension, open, pending, contexts[i], i + 1 == chunks);
    out.arcs.insert(out.arcs.end(), part.chunk.arcs.begin(), part.chunk.arcs.end());
    out.node_ids.insert(out.node_ids.end(), part.node_ids.begin(), part.node_ids.end());
    for (std::size_t k = 0; k < part.labels.size(); ++k) out.labels.emplace_back(part.labels[k]);
    out.directed = out.directed || part.directed;
    out.self_loops_dropped += part.chunk.self_loops_dropped;
    graph_lines.insert(graph_lines.end(), part.graph_lines.begin(), part.graph_lines.end());
  }
  check_one_gml_graph(name, graph_lines);
  return out;
}

}  // namespace graphrf::test
