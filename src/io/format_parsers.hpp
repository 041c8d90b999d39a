#pragma once
// The per-format parsers behind parse_header / count_records / parse_chunk (internal to the library). Each
// format lives in its own file: format_edge_list.cpp, format_matrix_market.cpp, format_metis.cpp,
// format_dimacs.cpp, format_obj.cpp. parse_* append to `out.arcs` and set out.records and
// out.self_loops_dropped; the dispatcher sets out.lines and reserves out.arcs.
#include <cstdint>
#include <string>
#include <string_view>

#include "graphrf/io/graph_formats.hpp"

namespace graphrf::detail {

FileHeader edge_list_header(std::string_view head, const std::string& file, int weight_column_option, IdMode ids);
std::int64_t edge_list_records(std::string_view chunk);
void parse_edge_list(const FileHeader& header, std::string_view chunk, const ChunkContext& ctx, ParsedChunk& out);

FileHeader matrix_market_header(std::string_view head, const std::string& file, int weight_column_option);
std::int64_t matrix_market_records(std::string_view chunk);
void parse_matrix_market(const FileHeader& header, std::string_view chunk, const ChunkContext& ctx,
                         ParsedChunk& out);

FileHeader metis_header(std::string_view head, const std::string& file, int weight_column_option);
std::int64_t metis_records(std::string_view chunk);
void parse_metis(const FileHeader& header, std::string_view chunk, const ChunkContext& ctx, ParsedChunk& out);

FileHeader dimacs_header(std::string_view head, const std::string& file, int weight_column_option);
std::int64_t dimacs_records(std::string_view chunk);
void parse_dimacs(const FileHeader& header, std::string_view chunk, const ChunkContext& ctx, ParsedChunk& out);

FileHeader obj_header(std::string_view head, const std::string& file, int weight_column_option);
std::int64_t obj_records(std::string_view chunk);
void parse_obj(const FileHeader& header, std::string_view chunk, const ChunkContext& ctx, ParsedChunk& out);

// DIMACS problem line "p WORD N M": returns true and sets the word and counts when `line` is one.
bool parse_dimacs_problem_line(std::string_view line, std::string_view& word, std::int64_t& nodes,
                               std::int64_t& arcs);

}  // namespace graphrf::detail
