#pragma once
// One run of `graphrf attention` on a graph: its Q/K/V (an HDF5 file or seeded synthetic ones), the GRF-masked
// and unmasked linear attention of every head (run_attention), and the figures of each head. attention_output.hpp
// writes the result; the references (reference/attention_head_errors.hpp) check it.
#include <cstdint>
#include <string>
#include <vector>

#include "graphrf/attention/attention_pipeline.hpp"
#include "graphrf/core/report.hpp"
#include "graphrf/mpi/log.hpp"
#include "graphrf/mpi/run_summary.hpp"

namespace graphrf {

struct AttentionRunOptions {
  AttentionConfig config;
  std::string qkv_path;                 // HDF5 Q/K/V (qkv.hpp); empty: synthetic Q/K/V
  std::string dark_sigma_path;          // HDF5 /sigma or /M for dark features (dark_sigma_file.hpp); empty: whitening
  int heads = 1;                        // heads of synthetic Q/K/V
  std::vector<int> synthetic = {8, 8};  // d, d_v of synthetic Q/K/V
  bool save_grf = false;                // the writer also writes what `graphrf grf` writes
  bool by_length = false;               // with save_grf: also /grf_by_length
  std::uint64_t memory_limit = 0;       // --memory-limit per rank (0: the node's, memory_limit.hpp)
};

struct AttentionRun {
  AttentionRunOptions options;
  QkvRows qkv;
  std::vector<HeadResult> heads;
  PhaseTimes phases;  // load (Q/K/V), walks + attention
  double memory_estimate_mib = 0, peak_mib = 0;  // per rank, the largest over ranks (attention_memory.hpp)
};

// Collective. Refuses synthetic Q/K/V larger than the memory budget before allocating them, a run whose memory
// estimate (attention_memory.hpp) exceeds the memory limit before walking, and outputs that overflowed
// (InputError naming the node).
AttentionRun run_graph_attention(const DistributedGraph& g, const AttentionRunOptions& options, const Log& log);

// "attention   key pass ... s, query pass ... s, normaliser min ..., bad rows ..., ... MB moved" for one head.
// Collective (the bytes moved are summed over ranks).
std::string describe_attention_pass(const Communicator& comm, const HeadResult& head);

// head<h>_denominator_min and head<h>_bad_rows.
Report attention_head_figures(int h, const HeadResult& head);

}  // namespace graphrf
