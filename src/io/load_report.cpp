#include "graphrf/io/load_report.hpp"

namespace graphrf {

std::vector<std::string> LoadReport::adjustments(std::int64_t edges) const {
  std::vector<std::string> out;
  if (skipped_header_line > 0) out.push_back("skipped the column-name header on line " + std::to_string(skipped_header_line));
  if (string_ids)
    out.push_back("read node ids as names (--ids): nodes are numbered 0..N-1 in ascending byte order of their names");
  if (node_labels) out.push_back("read the GML node labels: outputs hold them in /nodes/name (/nodes/id keeps the GML ids)");
  if (gml_directed && !directed)
    out.push_back("the GML file says 'directed 1': its arcs were symmetrised (pagerank --directed keeps them)");
  if (normalized_graph)
    out.push_back("read /graph's values, D^-1/2 A D^-1/2 (written with --weights normalized), as the edge weights: "
                  "write the file with info --weights raw to read A back");
  if (self_loops_dropped > 0) out.push_back("dropped " + std::to_string(self_loops_dropped) + " self-loops");
  if (self_loops_kept > 0) out.push_back("kept " + std::to_string(self_loops_kept) + " self-loops");
  if (duplicate_arcs_merged > 0)
    out.push_back("merged " + std::to_string(duplicate_arcs_merged) + " duplicate arcs (--duplicates " + duplicate_policy + ")");
  if (reciprocal_pairs > 0)
    out.push_back("combined " + std::to_string(reciprocal_pairs) + " edges listed in both directions" +
                  (reciprocal_weight_conflicts > 0
                       ? " (" + std::to_string(reciprocal_weight_conflicts) + " with different weights: kept the larger)"
                       : ""));
  const std::int64_t listed = arcs_read - self_loops_dropped;
  if (listed != edges && !directed) out.push_back("symmetrised " + std::to_string(listed) + " arcs into " + std::to_string(edges) + " edges");
  return out;
}

}  // namespace graphrf
