#include "graphrf/frames/frame_run.hpp"

#include <malloc.h>

#include <algorithm>
#include <cmath>

#include "graphrf/core/error.hpp"
#include "graphrf/core/timer.hpp"

namespace graphrf {

std::vector<std::int64_t> split_frames(const std::vector<std::int64_t>& offsets, int ranks) {
  const auto frames = static_cast<std::int64_t>(offsets.size()) - 1;
  const double total = static_cast<double>(offsets.back());
  std::vector<std::int64_t> first(static_cast<size_t>(ranks) + 1, frames);
  first[0] = 0;
  // rank_of(f) is non-decreasing in f, so each rank's frames are one range.
  auto rank_of = [&](std::int64_t f) {
    const double middle = 0.5 * static_cast<double>(offsets[static_cast<size_t>(f)] + offsets[static_cast<size_t>(f) + 1]);
    return std::min(ranks - 1, static_cast<int>(std::floor(middle / total * ranks)));
  };
  for (int r = 1; r < ranks; ++r) {
    std::int64_t f = first[static_cast<size_t>(r) - 1];
    while (f < frames && rank_of(f) < r) ++f;
    first[static_cast<size_t>(r)] = f;
  }
  return first;
}

namespace {

// Rank 0's progress: frames done, rate and ETA, at most every `interval` seconds (plain lines off a terminal).
class FrameProgress {
 public:
  FrameProgress(const Log& log, std::int64_t total) : log_(log), total_(total), interval_(log.terminal() ? 0.5 : 5.0) {}
  void update(std::int64_t done) {
    const double t = clock_.seconds();
    const bool last = done == total_;
    if (!last && t - last_report_ < interval_) return;
    last_report_ = t;
    const double rate = static_cast<double>(done) / std::max(t, 1e-9);
    std::string line = "frames      " + std::to_string(done) + " / " + std::to_string(total_) + " done, " + fmt(rate, 1) +
                       " frames/s";
    if (!last && rate > 0) line += ", ETA " + fmt(static_cast<double>(total_ - done) / rate, 0) + " s";
    log_.progress(line, last);
  }

 private:
  const Log& log_;
  std::int64_t total_;
  double interval_, last_report_ = 0;
  Timer clock_;
};

// Every frame allocates and frees the same large buffers (graph, GRF rows, feature tables). By default glibc
// returns blocks above its mmap threshold to the kernel on free, so each frame faults them in and zeroes them
// again (about 5% of a frame). Keeping freed memory in the heap lets the next frame reuse it.
void keep_freed_memory_for_the_next_frame() {
  mallopt(M_MMAP_THRESHOLD, 512 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
}

}  // namespace

FrameOutputType parse_frame_output_type(const std::string& s) {
  if (s == "float64") return FrameOutputType::float64;
  if (s == "float32") return FrameOutputType::float32;
  throw InputError("frames.output_type: expected float64 or float32 (got '" + s + "')");
}

FramesSummary run_frames(const Communicator& comm, const FrameStack& stack, const FrameAttention& attention, int d_v,
                         std::int64_t batch, H5Output* out, const Log& log, FrameOutputType output_type) {
  Timer wall;
  keep_freed_memory_for_the_next_frame();
  const auto split = split_frames(stack.offsets, comm.size());
  const std::int64_t mine_first = split[static_cast<size_t>(comm.rank())], mine_last = split[static_cast<size_t>(comm.rank()) + 1];
  const std::int64_t rounds = comm.max((mine_last - mine_first + batch - 1) / batch);
  if (out) {
    std::vector<std::uint64_t> shape = stack.ragged
        ? std::vector<std::uint64_t>{static_cast<std::uint64_t>(stack.total_points()), static_cast<std::uint64_t>(d_v)}
        : std::vector<std::uint64_t>{static_cast<std::uint64_t>(stack.frames()), static_cast<std::uint64_t>(stack.points(0)),
                                     static_cast<std::uint64_t>(d_v)};
    if (output_type == FrameOutputType::float32) out->create_rows<float>("/frames/attention", shape);
    else out->create_rows<double>("/frames/attention", shape);
  }
  const H5Input in(stack.path);
  FrameProgress progress(log, stack.frames());
  FrameAttention::Times times;
  FramesSummary s;
  double read_seconds = 0, write_seconds = 0, lowest = INFINITY;
  std::int64_t done = 0;
  for (std::int64_t round = 0; round < rounds; ++round) {
    const std::int64_t a = std::min(mine_last, mine_first + round * batch), b = std::min(mine_last, a + batch);
    std::vector<double> rows;
    collective_try(comm, [&] {
      for (std::int64_t f = a; f < b; ++f) {
        Timer read;
        const Frame frame = read_frame(in, stack, f);
        read_seconds += read.seconds();
        const FrameAttention::Result r = attention.run(frame, times);
        rows.insert(rows.end(), r.output.data(), r.output.data() + r.output.size());
        s.edges += r.edges;
        s.hops += r.walks.hops;
        s.grf_nonzeros += r.grf_nonzeros;
        s.bad_rows += r.stats.bad_rows;
        lowest = std::min(lowest, r.stats.denominator_min);
        s.points += frame.cloud.size();
      }
    });
    if (out) {
      Timer write;
      const std::uint64_t first_row = static_cast<std::uint64_t>(stack.ragged ? stack.offsets[static_cast<size_t>(a)] : a);
      if (output_type == FrameOutputType::float32) {
        const std::vector<float> rounded(rows.begin(), rows.end());
        out->write_rows_at<float>("/frames/attention", first_row, rounded);
      } else {
        out->write_rows_at<double>("/frames/attention", first_row, rows);
      }
      write_seconds += write.seconds();
    }
    done += comm.sum(b - a);
    progress.update(done);
  }
  s.frames = done;
  s.points = comm.sum(s.points);
  s.edges = comm.sum(s.edges);
  s.hops = comm.sum(s.hops);
  s.grf_nonzeros = comm.sum(s.grf_nonzeros);
  s.bad_rows = comm.sum(s.bad_rows);
  s.denominator_min = comm.min(lowest);
  s.read_seconds = comm.max(read_seconds);
  s.write_seconds = comm.max(write_seconds);
  // The busiest rank's phase split (all ranks learn which rank that is).
  const double busy = times.graph + times.walks + times.attention;
  const double most = comm.max(busy);
  std::vector<double> split_times = {times.graph, times.walks, times.attention};
  const int busiest = comm.min(busy == most ? comm.rank() : comm.size());
  comm.broadcast(split_times, busiest);
  s.busiest = {split_times[0], split_times[1], split_times[2]};
  s.seconds = comm.max(wall.seconds());
  return s;
}

}  // namespace graphrf
