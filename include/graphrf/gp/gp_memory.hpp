#pragma once
// Memory per rank of a `gp` run, said before the walks and compared with the measured peak after: this rank's
// share of the graph and of the walks' in-flight cap, the length-resolved GRF rows (grf_memory.hpp), the feature
// operator built on them (grf_feature_operator.hpp: Phi by rows, and Phi_S by rows and by columns for the
// training rows S), and the dense blocks of n_local rows that learning and prediction hold. Learning solves for
// probes + 1 right-hand sides (one probe per training node with --probes 0), prediction for samples + 1 (and for
// every test node with --exact-variance); the CG iterates and the operator's products make about learn_blocks()
// and predict_blocks() blocks of that width, and a product gathers the rows of other ranks its pairs read.
// Training and test counts are known only after the walks (synthetic observations are drawn through them): the
// estimate takes their upper bounds (the synthetic share of the nodes, or every node for observations from a
// file).
#include <array>

#include "graphrf/core/memory_size.hpp"

#include "graphrf/gp/gp_run.hpp"
#include "graphrf/graph/distributed_graph.hpp"

namespace graphrf {

struct GpMemory {
  double graph_bytes = 0, grf_bytes = 0, operator_bytes = 0, block_bytes = 0;
  double total() const { return graph_bytes + grf_bytes + operator_bytes + block_bytes; }
  std::array<MemoryPart, 4> parts() const {
    return {{{"graph", graph_bytes}, {"GRF rows", grf_bytes}, {"operator", operator_bytes}, {"blocks", block_bytes}}};
  }
};

// Blocks of n_local rows held at once, for a training share s of the nodes (the CG iterates have the training rows
// only). Measured on grid:200x200 (np 1 and 2), from 1 to 256 probes: the peak grew by 3.8-3.9 blocks of
// n_local x (probes + 1) at s = 0.08 and 9.0 at s = 0.8; from 1 to 256 samples by 8-9 and 12.2 blocks of
// n_local x (samples + 1). The figures below are those lines with a margin for the heap.
double learn_blocks(double train_share);
double predict_blocks(double train_share);

GpMemory estimate_gp_memory(const DistributedGraph& g, const GpRunOptions& options);

}  // namespace graphrf
