#pragma once
// Termination of an asynchronous algorithm by counting, without a token ring or a per-step barrier. Every rank
// counts its finished work items; the counts only grow and their total is known (`target`), so once a sum of
// per-rank counts equals the target every item has finished, however stale the contributions were. Ranks
// contribute through a chain of non-blocking MPI_Iallreduce calls, joining the next one when idle (or every
// second while busy). All ranks see the same sums, so they stop after the same reduction. Further counters
// (e.g. work done) ride along in the same reduction, for progress lines.
#include <cstdint>
#include <span>
#include <vector>

#include "graphrf/mpi/communicator.hpp"
#include "graphrf/mpi/request.hpp"

namespace graphrf {

class CountedTermination {
 public:
  // While busy, a rank joins a reduction at least this often.
  static constexpr double kBusyJoinSeconds = 1.0;

  // `counters`: how many counts each rank contributes; the first one is compared with `target`.
  CountedTermination(const Communicator& comm, std::int64_t target, size_t counters);

  // Collective in the long run (every rank must keep calling it until finished()). `now`: seconds since
  // the start, `local`: this rank's counts. Tests the running reduction; if there is none (or it just
  // completed without reaching the target) joins the next one when `idle` or busy for kBusyJoinSeconds.
  // True when a reduction completed in this call (sums() holds its result).
  bool advance(bool idle, double now, std::span<const std::int64_t> local);

  bool finished() const { return finished_; }
  // The sums of the last completed reduction (zeros before the first).
  const std::vector<std::int64_t>& sums() const { return sums_; }

 private:
  const Communicator& comm_;
  std::int64_t target_;
  std::vector<std::int64_t> in_, out_, sums_;
  Request request_;
  bool finished_ = false;
  double last_join_ = -1e300;
};

}  // namespace graphrf
