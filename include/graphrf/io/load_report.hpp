#pragma once
// What the loader read and what it changed, as global counts identical on every rank.
#include <cstdint>
#include <string>
#include <vector>

namespace graphrf {

struct LoadReport {
  std::string source;                       // e.g. "cora.cites as edgelist (extension .cites)"
  std::int64_t lines = 0;                   // text lines read (0 for generated graphs)
  std::int64_t arcs_read = 0;               // arcs as listed in the input, self-loops included
  std::int64_t self_loops_dropped = 0;
  std::int64_t self_loops_kept = 0;
  std::int64_t duplicate_arcs_merged = 0;   // repeated u->v arcs combined by the duplicate policy
  std::int64_t reciprocal_pairs = 0;        // edges given as both u->v and v->u
  std::int64_t reciprocal_weight_conflicts = 0;  // ... with different weights (the larger is kept)
  std::int64_t skipped_header_line = 0;
  std::int64_t declared_nodes = -1;
  bool weighted = false;
  bool string_ids = false;           // node ids read as names: /nodes/id is 0..N-1 in byte order, /nodes/name the names
  bool node_labels = false;          // GML node labels: /nodes/name holds them (the ids stay the GML ids)
  bool gml_directed = false;         // a GML file said `directed 1` (arcs are still symmetrised unless --directed)
  bool normalized_graph = false;     // an HDF5 /graph written with --weights normalized: its values became the weights
  std::string duplicate_policy;
  bool directed = false;             // arcs kept as given (no symmetrisation)
  double read_seconds = 0, assemble_seconds = 0, partition_seconds = 0, distribute_seconds = 0;

  // One human-readable sentence per adjustment ("dropped 642 self-loops", ...).
  std::vector<std::string> adjustments(std::int64_t edges) const;
};

}  // namespace graphrf
