#pragma once
// How a graph is read, cleaned and partitioned (the --graph family of options).
#include <cstdint>
#include <string>
#include <string_view>

#include "graphrf/io/graph_formats.hpp"

namespace graphrf {

// How repeated arcs u->v combine their weights.
enum class DuplicatePolicy { sum, max, error };
DuplicatePolicy parse_duplicate_policy(std::string_view name);  // throws InputError naming graph.duplicates
const char* duplicate_policy_name(DuplicatePolicy);

struct GraphOptions {
  std::string graph;             // a file, grid:RxC or random:N:MEAN_DEGREE[:SEED]
  std::string format = "auto";   // auto | edgelist | mtx | metis | dimacs | obj | gml | ply | off | stl | hdf5
  DuplicatePolicy duplicates = DuplicatePolicy::max;
  bool keep_self_loops = false;
  int weight_column = 0;         // edge lists: 0 = automatic, -1 = unweighted, k = 1-based column
  IdMode ids = IdMode::automatic;   // edge lists: integer or string node ids (--ids)
  int host_size = 0;  // ranks per host (host_topology.hpp): 0 what MPI reports, 1 every rank its own host
  // Every host keeps the whole graph's walk table (walk_arcs.hpp), so walkers never leave their host; start rows,
  // outputs and products stay partitioned. For graphs whose table fits on each host, where cuts are poor.
  bool replicate_graph = false;
  std::string partition = "block";  // block | metis | ptscotch | file:PATH
  bool directed = false;         // keep arcs as given (out-arcs per row) instead of symmetrising
  std::uint64_t memory_limit = 0;   // --memory-limit in bytes per rank; 0: the node's available memory / its ranks
};

}  // namespace graphrf
