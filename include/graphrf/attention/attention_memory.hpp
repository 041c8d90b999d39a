#pragma once
// Memory per rank of an `attention` run, said before the walks and compared with the measured peak after. Four
// parts, each this rank's share:
//  - graph: the graph and the walk engine's table, and the walks' in-flight cap (grf_memory.hpp);
//  - GRF rows: every head's rows, sized as the engine reserves them (one entry per expected visit, capped by N);
//  - dense rows: Q, K, V and every head's features phi(q), phi(k), its masked and its linear output;
//  - passes: the largest transient of one head's attention (masked_attention.cpp). The symmetric key pass holds
//    S and z (m d_v + m values per owned node), the key entries sent to column owners and received from them
//    (32 bytes each), the terms of the column sums (24 bytes per entry) and the phi(k_j), v_j rows fetched from
//    other hosts; the query pass holds S and z, a copy of the query rows in canonical column order, the lookup
//    of remote entries, the S and z rows fetched from other hosts and the numerators. Alg. 2 holds a table of
//    phi(k), v rows and the rows fetched from other hosts. Rows from other hosts are counted at one per entry
//    that may lie there (a visit t hops out, at most about t times the share of arcs that cross hosts) or one
//    per node of other hosts, whichever is fewer.
#include <array>

#include "graphrf/core/memory_size.hpp"

#include "graphrf/attention/attention_pipeline.hpp"
#include "graphrf/graph/distributed_graph.hpp"

namespace graphrf {

struct AttentionMemory {
  double graph_bytes = 0, grf_bytes = 0, dense_bytes = 0, pass_bytes = 0;
  double total() const { return graph_bytes + grf_bytes + dense_bytes + pass_bytes; }
  std::array<MemoryPart, 4> parts() const {
    return {{{"graph", graph_bytes}, {"GRF rows", grf_bytes}, {"dense rows", dense_bytes}, {"passes", pass_bytes}}};
  }
};

// The width of one head's inputs and features.
struct AttentionShape {
  int heads = 1, d = 0, dv = 0, m = 0;  // m: features per row (resolve_feature_count)
};

// Collective.
AttentionMemory estimate_attention_memory(const DistributedGraph& g, const AttentionConfig& config,
                                          const AttentionShape& shape);

}  // namespace graphrf
