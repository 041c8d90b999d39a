#include "graphrf/mpi/counted_termination.hpp"

#include <algorithm>

namespace graphrf {

CountedTermination::CountedTermination(const Communicator& comm, std::int64_t target, size_t counters)
    : comm_(comm), target_(target), in_(counters, 0), out_(counters, 0), sums_(counters, 0) {}

bool CountedTermination::advance(bool idle, double now, std::span<const std::int64_t> local) {
  if (finished_) return false;
  bool completed = false;
  if (request_.running()) {
    if (!request_.test()) return false;
    sums_ = out_;  // out_ is written again by the next reduction
    completed = true;
    finished_ = sums_[0] == target_;
    if (finished_) return true;
  }
  if (idle || now - last_join_ >= kBusyJoinSeconds) {
    last_join_ = now;
    std::copy(local.begin(), local.end(), in_.begin());
    check_mpi(MPI_Iallreduce(in_.data(), out_.data(), static_cast<int>(in_.size()), MPI_INT64_T, MPI_SUM, comm_.get(),
                             request_.start()),
              "MPI_Iallreduce");
  }
  return completed;
}

}  // namespace graphrf
