#pragma once
// Graph text formats: format names, format detection, header parsing and chunk parsing. Pure functions on
// in-memory text (no MPI, no file I/O), made for a parallel loader:
//
//   rank 0: head = first min(file_size, kFormatHeadBytes) bytes of the file
//           format = detect_format(path, head).format  (or parse_format_name(--format))
//           header = parse_header(format, head, path, weight_column)        -> broadcast (trivially copyable)
//   every rank: chunk = a line-aligned byte range of [header.data_offset, file_size) (whole lines; only the
//           file's last line may lack its '\n'); lines = count_lines(chunk); records = count_records(...);
//           exclusive prefix sums over ranks give ChunkContext::first_line (= header.data_first_line + lines
//           before the chunk) and ChunkContext::records_before; for obj the loader sets
//           header.declared_nodes to the global record ('v' line) count; then parse_chunk(...).
//
// Concatenating parse_chunk results over any line-aligned split equals parsing the data region whole, and
// an error is reported with the same global line number whichever chunk it falls in.
//
// Errors in the input are graphrf::InputError with a one-line message
//   FILE:LINE: what is wrong (got 'the offending line, truncated to 60 characters')
// or "FILE: what is wrong" when no line is to blame. Lines may end in "\n" or "\r\n".
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "graphrf/io/node_names.hpp"

namespace graphrf {

// gml: see gml_format.hpp; hdf5 (graphrf's own /graph) and the meshes ply, off, stl are not text chunks: the
// loader reads them whole (h5_graph_input.hpp, mesh_formats.hpp), so parse_header/parse_chunk refuse them.
enum class GraphFormat { edge_list, matrix_market, metis, dimacs, obj, gml, hdf5, ply, off, stl };

// The formats read whole by the loader rather than by line-aligned chunks.
inline bool is_whole_file_format(GraphFormat format) {
  return format == GraphFormat::hdf5 || format == GraphFormat::ply || format == GraphFormat::off ||
         format == GraphFormat::stl;
}

// "edgelist", "mtx", "metis", "dimacs", "obj", "gml", "hdf5", "ply", "off", "stl".
const char* format_name(GraphFormat format);

// Accepts the format_name() spellings and the aliases edge-list, snap, tsv, csv (edgelist), mm (mtx),
// graph (metis), gr (dimacs), h5 (hdf5); case-insensitive. Anything else throws InputError
// "graph.format: unknown format 'x' (expected auto, edgelist, mtx, metis, dimacs, obj, gml, hdf5, ply, off, stl)". "auto" is not a format:
// the caller resolves it with detect_format, and passing it here throws std::invalid_argument.
GraphFormat parse_format_name(std::string_view name);

struct FormatChoice {
  GraphFormat format;
  std::string reason;  // e.g. "extension .mtx", "header '%%MatrixMarket'", "header 'p sp'"
};

// The head given to detect_format / parse_header: the first min(file_size, kFormatHeadBytes) bytes. A last
// line without '\n' in a head of this full size may be cut, so it is not used.
inline constexpr std::int64_t kFormatHeadBytes = std::int64_t{1} << 20;

// Rules, first match wins: the HDF5 signature "\x89HDF\r\n\x1a\n" -> hdf5; a first line "ply" -> ply; a first
// word "OFF" (or a variant such as "COFF", "NOFF") -> off; a head starting with "%%MatrixMarket" -> mtx; a DIMACS problem line "p WORD N M"
// after optional 'c' comment and blank lines -> dimacs; extension .mtx/.mm -> mtx, .graph/.metis -> metis,
// .gr/.dimacs -> dimacs, .obj -> obj, .gml -> gml, .h5/.hdf5 -> hdf5, .ply -> ply, .off -> off, .stl -> stl;
// a head starting "solid NAME" with a "facet" line (ASCII STL) -> stl; a first key 'graph [' or 'Creator' -> gml; lines starting with "v " and "f " -> obj; anything else -> edgelist
// (reason "extension .csv" for .txt/.tsv/.csv/.edges/.el/.cites/.edgelist, else "default ..."). METIS is
// never guessed without its extension. Throws InputError for gzip/bzip2/xz/zstd/zip compressed input.
FormatChoice detect_format(const std::string& path, std::string_view head);

// For errors while reading a file as `used` (given by --format): "; it looks like FORMAT (REASON): try
// --format FORMAT" when detect_format picks another format from the file's content or extension, else "".
std::string format_hint(const std::string& path, std::string_view head, GraphFormat used);

// How edge-list node ids are read (--ids): `integer` (non-negative 64-bit, ordered by value), `string` (any
// token, ordered by its bytes), or `automatic`: decided by the first edge line (parse_header), integer when
// its ids are, else string; a later non-integer id is then an error naming its line and --ids string.
// Matrix Market, METIS, DIMACS and OBJ number their nodes 1..N: integer by construction.
enum class IdMode : std::uint8_t { automatic, integer, string };
IdMode parse_id_mode(std::string_view name);  // "auto", "integer", "string"; else InputError naming graph.ids
const char* id_mode_name(IdMode mode);

struct FileHeader {                      // trivially copyable (it is broadcast as bytes)
  std::int64_t data_offset = 0;          // byte offset where data records start (after banner/size/header lines)
  std::int64_t data_first_line = 1;      // 1-based line number of the line at data_offset
  std::int64_t declared_nodes = -1;      // -1: ids are arbitrary non-negative 64-bit (edge lists); else node ids
                                         // are 1..declared_nodes. obj: the loader sets the global 'v' count.
  std::int64_t declared_entries = -1;    // mtx nnz, metis undirected edge count m, dimacs arc count (-1 if none)
  bool symmetric = false;                // mtx 'symmetric' (entries are returned as stored, not mirrored)
  bool integer_values = false;           // mtx 'integer': every value must be written as an integer
  bool has_weights = false;              // weights are read from the data (else every arc has w = 1)
  int weight_column = 0;                 // edge lists: 1-based column holding the weight (0 = unweighted)
  int metis_ncon = 0;                    // metis: number of vertex weights per line to skip
  bool metis_vertex_size = false;        // metis: a vertex size precedes vertex weights
  bool metis_edge_weights = false;       // metis: fmt says each neighbour is followed by an edge weight
  std::int64_t skipped_header_line = 0;  // edge lists: line number of a skipped column-name header (0 = none)
  // Edge lists read without weights by default (the first edge line has 2 columns): that line's number. A
  // later line with more columns is an error, so a weight in column 3 is never dropped silently.
  std::int64_t unweighted_by_first_line = 0;
  // Edge lists: as asked by --ids, `automatic` resolved by the first edge line; other formats: integer.
  IdMode ids = IdMode::integer;
  std::int64_t integer_ids_by_first_line = 0;  // --ids auto read as integers: the deciding line's number
};
static_assert(std::is_trivially_copyable_v<FileHeader>);

// weight_column_option: 0 = default (edge lists: column 3 if the first data line has >= 3 columns, unless a
// column-name header names a column "weight", "w" or "value" (case-insensitive, column >= 3), then that
// column; other formats: the weights the file declares); > 0 forces that column of an edge list (an error for
// 1 and 2, for other formats, and on data lines lacking the column); -1 ignores weights in every format.
// Throws InputError when the header is malformed or is not found in the head.
//
// ids (edge lists): with `integer` a first line whose first two columns do not start like numbers is a
// column-name header; with `string` only one naming both endpoint columns with a usual name (source/target,
// src/dst/dest/destination, from/to, u/v, node1/node2, node_1/node_2, id1/id2, head/tail, start/end; any case,
// quotes allowed) is; with `automatic` such a line, or a non-numeric first line followed by a line with a
// numeric id. GML takes no header (the whole file is data); other formats refuse `string`.
FileHeader parse_header(GraphFormat format, std::string_view head, const std::string& file_name,
                        int weight_column_option = 0, IdMode ids = IdMode::integer);

struct Arc {
  std::int64_t u;
  std::int64_t v;
  double w;
};  // ids exactly as in the file (1-based for mtx/metis/dimacs/obj; obj negative indices resolved); with
    // string ids, positions in the chunk's `names`

struct ChunkContext {
  std::string file_name;
  std::int64_t first_line = 1;      // global 1-based line number of the chunk's first line
  std::int64_t records_before = 0;  // metis: vertex lines before this chunk; obj: 'v' lines before; else unused
  bool keep_self_loops = false;
};

struct ParsedChunk {
  std::vector<Arc> arcs;
  std::int64_t self_loops_dropped = 0;  // self-loops seen and dropped (kept ones are returned as arcs u == v)
  std::int64_t lines = 0;               // lines in the chunk (== count_lines(chunk))
  std::int64_t records = 0;             // == count_records(format, header, chunk) for valid input
  NodeNames names;                      // string ids: the chunk's distinct ids in ascending byte order
};

// Number of lines: '\n' count, plus one for a last line without '\n'. count_lines("") == 0.
std::int64_t count_lines(std::string_view chunk);

// Records in a chunk, for the loader's prefix sums (never throws):
//   edgelist: lines that are not blank and not '#'/'%' comments;  mtx: lines that are not blank or '%';
//   metis: lines that are not '%' comments (an empty line is an isolated vertex);
//   dimacs: lines that are not blank or 'c' comments;  obj: 'v' lines.
std::int64_t count_records(GraphFormat format, const FileHeader& header, std::string_view chunk);

// Parses the arcs of one line-aligned chunk of the data region (header.ids must be resolved: integer or
// string). Self-loops are dropped (and counted) unless
// context.keep_self_loops. Weights, where read, must be finite and > 0 in every format.
ParsedChunk parse_chunk(GraphFormat format, const FileHeader& header, std::string_view chunk,
                        const ChunkContext& context);

}  // namespace graphrf
