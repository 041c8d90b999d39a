#pragma once
// Stage 1 of loading: every rank obtains a share of the input arcs, with node ids as the source gives them.
// Files are read in parallel (each rank a disjoint, line-aligned byte range); generated graphs are produced
// by each rank for its own block of nodes.
#include <cstdint>
#include <vector>

#include "graphrf/mpi/communicator.hpp"
#include "graphrf/io/graph_formats.hpp"
#include "graphrf/io/graph_options.hpp"
#include "graphrf/io/load_report.hpp"

namespace graphrf {

struct ArcInput {
  std::vector<Arc> arcs;             // this rank's share; ids as in the source
  std::int64_t declared_nodes = -1;  // >= 0: node ids are id_base .. id_base + declared_nodes - 1 (isolated nodes kept)
  std::int64_t id_base = 0;          // 1 for 1-based file formats, 0 for generated graphs
  // declared_nodes < 0: ids of dropped self-loops (this rank's share). They are nodes even when no other arc
  // mentions them: a node the file names only in a self-loop stays, isolated.
  std::vector<std::int64_t> self_loop_ids;
  // String node ids (--ids string, or auto whose first edge line has a non-integer id): this rank's distinct names in
  // ascending byte order, and `arcs` / `self_loop_ids` hold positions in it.
  bool string_ids = false;
  // Inputs that list their nodes (GML node blocks): this rank's share of the listed ids. Every arc endpoint
  // must be one of them, and listed nodes without arcs are kept (isolated).
  bool nodes_listed = false;
  std::vector<std::int64_t> listed_node_ids;
  NodeNames listed_node_labels;  // GML `label` of each listed node ("" for none), in listed_node_ids' order
  NodeNames names;
  LoadReport report;
};

ArcInput read_arcs(const Communicator& comm, const GraphOptions& options);

// grid:RxC and random:N:MEAN_DEGREE[:SEED]; identical for any rank count.
bool is_generated_graph(const std::string& spec);
ArcInput generate_arcs(const Communicator& comm, const std::string& spec);

// Line-aligned share [begin, end) of a file's byte range [data_offset, file_size) for `rank` of `ranks`:
// a line belongs to the rank whose byte range holds its first byte.
std::string read_line_aligned_share(const std::string& path, std::int64_t data_offset, std::int64_t file_size, int rank,
                                    int ranks);

}  // namespace graphrf
