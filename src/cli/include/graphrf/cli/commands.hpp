#pragma once
// The commands of `graphrf`, each defined (options, run) in its own src/cli/command_*.cpp.
#include "graphrf/cli/cli.hpp"

namespace graphrf {

Command info_command();
Command grf_command();
Command pagerank_command();
Command couple_command();
Command attention_command();
Command wavelet_command();
Command gp_command();
Command bench_walks_command();
Command bench_couplings_command();
Command bench_attention_command();
Command bench_features_command();
Command bench_points_command();
Command bench_output_command();
Command bench_wavelet_command();

struct AttentionConfig;
// `graphrf attention --frames STACK.h5` (command_frames.cpp): the options only the frames path reads.
struct FramesArguments {
  std::optional<std::string> path;  // --frames
  std::int64_t batch = 16;          // --frames-batch
  std::string dtype;                // --frames-dtype
};
int run_attention_frames(const CommandContext& ctx, const GraphArguments& graph, const FramesArguments& frames,
                         const AttentionConfig& attention, const std::vector<int>& synthetic, const std::string& out_path);

}  // namespace graphrf
