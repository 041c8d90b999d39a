#pragma once
// GML (Graph Modelling Language: Newman's network collections, networkx.write_gml, Gephi, igraph), read in
// parallel. Pure functions on in-memory text, like graph_formats.hpp, for line-aligned chunks:
//
//   every rank: tail = gml_chunk_tail(chunk)               (does its last line leave a key waiting for '[')
//               all tails gathered; pending = gml_pending_before(tails, rank)
//               summary = summarize_gml_chunk(chunk, ctx, pending)  (its unmatched ']' and '[')
//               all summaries gathered; open = gml_blocks_open_before(summaries, rank)
//               if gml_record_open_at_end(open, summary): the loader appends lines after the chunk
//                 (gml_record_end tells how far) so the record the chunk opened ends inside the text;
//               parse_gml_chunk(header, chunk, extension, open, pending, ctx, ends_file).
//
// A node or edge block belongs to the chunk holding its opening '[': that rank reads it to its ']' (past its
// chunk end if need be), and the next rank skips the block's remainder. Concatenating the results over any
// line-aligned split equals parsing the whole file; errors name the same FILE:LINE.
//
// Accepted: `key value` pairs separated by blanks and line ends, values integers, reals, "strings" (no '"'
// inside, ending on their line) or `[ ... ]` blocks; `#` starts a comment. A key and a scalar value share a
// line; a block's '[' may be on a later line than its key (Newman writes "node" and "[" on two lines).
// Refused with FILE:LINE, because chunks start at line boundaries and a rank must be able to tokenise its
// lines without the text before them: a scalar value on a later line than its key, and a string spanning
// lines. One `graph [ ... ]` block per file (a second one is refused). In `graph [ ... ]`: `directed 0|1`, `node [ id N label "S" ... ]` (N an integer, the node's id; the label, if any, a name
// written to /nodes/name; other keys and nested blocks such as graphics are ignored), `edge [ source N target M (weight|value) W ... ]` (the weight, if
// any, is `weight`, else `value`; finite and > 0; 1 when absent). Nodes without edges are kept.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "graphrf/io/graph_formats.hpp"

namespace graphrf {

enum class GmlBlock : std::uint8_t { graph, node, edge, other };

// A key waiting for its '[' at a line end (carried across lines and chunks).
struct GmlPending {
  bool waiting = false;
  GmlBlock block = GmlBlock::other;
};

struct GmlTail {
  bool has_tokens = false;  // the chunk has anything but blanks and comments
  GmlPending pending;       // what its last line with tokens leaves waiting
};

// Never throws (a malformed line is reported by summarize_gml_chunk).
GmlTail gml_chunk_tail(std::string_view chunk);
// The key waiting at the start of chunk `rank`: the tail of the nearest earlier chunk with tokens.
GmlPending gml_pending_before(const std::vector<GmlTail>& tails, int rank);

struct GmlSummary {
  std::int64_t closes = 0;           // ']' that close blocks opened before the chunk
  std::vector<GmlBlock> opens;       // blocks opened in the chunk and still open at its end, outermost first
};

// Throws InputError FILE:LINE for a line that cannot be tokenised (an unterminated string, a key without a
// value on its line, a value without a key).
GmlSummary summarize_gml_chunk(std::string_view chunk, const ChunkContext& context, GmlPending pending_at_start);

// Blocks open at the start of chunk `rank` given every chunk's summary (in file order).
std::vector<GmlBlock> gml_blocks_open_before(const std::vector<GmlSummary>& summaries, int rank);

// True when a node or edge block is open at the chunk's end (it continues in the next chunk's lines).
bool gml_record_open_at_end(const std::vector<GmlBlock>& open_at_start, const GmlSummary& chunk);

// For text following a chunk whose end leaves `depth` blocks open: the length of the prefix (whole lines)
// after which fewer than `record_depth` blocks are open (the open record has closed), or -1 if it does not
// close within `text`.
std::int64_t gml_record_end(std::string_view text, std::int64_t depth, std::int64_t record_depth, GmlPending pending);

struct ParsedGml {
  ParsedChunk chunk;                      // arcs (ids as in the file) and counts
  std::vector<std::int64_t> node_ids;     // ids of the node blocks this chunk owns
  NodeNames labels;                       // their `label` values, in node_ids' order ("" for a node without one)
  bool directed = false;                  // the chunk holds `directed 1`
  std::vector<std::int64_t> graph_lines;  // lines of the top-level 'graph [' blocks the chunk opens (at most 2)
};

// `extension`: the lines after the chunk that finish the record the chunk opened (empty if none). Self-loops
// follow context.keep_self_loops as in parse_chunk.
// ends_file: the chunk ends at the end of the file (then every block must be closed). Weights are read when
// header.has_weights (parse_header: unless --weight-column -1).
ParsedGml parse_gml_chunk(const FileHeader& header, std::string_view chunk, std::string_view extension,
                          const std::vector<GmlBlock>& open_at_start, GmlPending pending_at_start,
                          const ChunkContext& context, bool ends_file);

// A file holds one graph: given the lines of the top-level 'graph [' blocks in file order (every chunk's
// graph_lines, concatenated), throws InputError "FILE:LINE: a second 'graph [' block ..." when there are two.
void check_one_gml_graph(const std::string& file_name, const std::vector<std::int64_t>& graph_lines);

}  // namespace graphrf
