#pragma once
// Many frames per job. Frames are split over ranks in contiguous ranges balanced by point count (a frame is
// never split: one rank group is one rank, so a frame needs no messages), then processed in rounds of up to
// `batch` frames per rank; after each round every rank writes its rows of /frames/attention in one
// collective call, so memory stays at one batch per rank whatever the stack's length. Output rows depend
// only on the inputs and the seed, not on the rank count or the batch size.
#include <cstdint>
#include <string>
#include <vector>

#include "graphrf/frames/frame_attention.hpp"
#include "graphrf/frames/frame_stack.hpp"
#include "graphrf/io/h5_output.hpp"
#include "graphrf/mpi/communicator.hpp"
#include "graphrf/mpi/log.hpp"

namespace graphrf {

// First frame of each rank (ranks + 1 entries, the last = F): frame f goes to the rank whose share of the
// points holds the frame's middle point, so ranges are contiguous and loads differ by at most one frame.
std::vector<std::int64_t> split_frames(const std::vector<std::int64_t>& offsets, int ranks);

struct FramesSummary {
  std::int64_t frames = 0, points = 0, edges = 0, hops = 0, grf_nonzeros = 0, bad_rows = 0;
  double seconds = 0;                       // wall time of the whole loop (max over ranks)
  FrameAttention::Times busiest;            // the per-phase sums of the rank that spent longest computing
  double read_seconds = 0, write_seconds = 0;  // max over ranks
  double denominator_min = 0;
};

// The element type of /frames/attention: float64, or float32 (what a model trains on; half the file and half
// the write time, values rounded to nearest from the float64 computation).
enum class FrameOutputType { float64, float32 };
FrameOutputType parse_frame_output_type(const std::string&);  // InputError naming frames.output_type

// Collective. Writes /frames/attention (F x N x d_v, or rows x d_v when the stack is ragged) to `out` when it
// is not null. An InputError in any frame on any rank ends the run on every rank with that frame's message.
FramesSummary run_frames(const Communicator& comm, const FrameStack& stack, const FrameAttention& attention, int d_v,
                         std::int64_t batch, H5Output* out, const Log& log,
                         FrameOutputType output_type = FrameOutputType::float64);

}  // namespace graphrf
