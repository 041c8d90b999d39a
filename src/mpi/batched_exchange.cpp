#include "graphrf/mpi/batched_exchange.hpp"

#include <numeric>

#include "graphrf/mpi/traffic.hpp"

namespace graphrf {

BatchedExchange::BatchedExchange(const Communicator& comm) : comm_(comm.duplicate()) {}

std::optional<Arrival> BatchedExchange::probe() {
  int flag = 0;
  MPI_Status status;
  check_mpi(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_.get(), &flag, &status), "MPI_Iprobe");
  if (!flag) return std::nullopt;
  int bytes = 0;
  check_mpi(MPI_Get_count(&status, MPI_BYTE, &bytes), "MPI_Get_count");
  return Arrival{status.MPI_SOURCE, status.MPI_TAG, bytes};
}

Arrival BatchedExchange::wait_for(int tag) {
  MPI_Status status;
  check_mpi(MPI_Probe(MPI_ANY_SOURCE, tag, comm_.get(), &status), "MPI_Probe");
  int bytes = 0;
  check_mpi(MPI_Get_count(&status, MPI_BYTE, &bytes), "MPI_Get_count");
  return Arrival{status.MPI_SOURCE, status.MPI_TAG, bytes};
}

void BatchedExchange::receive(const Arrival& arrival, void* into) {
  check_mpi(MPI_Recv(into, static_cast<int>(arrival.bytes), MPI_BYTE, arrival.source, arrival.tag, comm_.get(),
                     MPI_STATUS_IGNORE),
            "MPI_Recv");
}

void BatchedExchange::send(int dest, int tag, std::vector<std::byte>&& batch) {
  PendingSend s{std::move(batch), Request{}};
  const auto bytes = static_cast<int>(s.batch.size());
  check_mpi(MPI_Isend(s.batch.data(), bytes, MPI_BYTE, dest, tag, comm_.get(), s.request.start()), "MPI_Isend");
  count_sent_bytes(bytes);
  ++messages_sent_;
  bytes_sent_ += bytes;
  sends_.push_back(std::move(s));
}

void BatchedExchange::reclaim(bool wait) {
  if (wait) {
    for (auto& s : sends_) s.request.wait();
    sends_.clear();
    return;
  }
  size_t kept = 0;
  for (size_t k = 0; k < sends_.size(); ++k) {
    if (sends_[k].request.test()) continue;
    if (kept != k) sends_[kept] = std::move(sends_[k]);
    ++kept;
  }
  sends_.resize(kept);
}

std::int64_t BatchedExchange::messages_sent_here(const Counts& sent_to) const {
  Counts sent_here(sent_to.size());
  check_mpi(MPI_Alltoall(sent_to.data(), 1, MPI_INT64_T, sent_here.data(), 1, MPI_INT64_T, comm_.get()),
            "MPI_Alltoall");
  return std::accumulate(sent_here.begin(), sent_here.end(), std::int64_t{0});
}

}  // namespace graphrf
