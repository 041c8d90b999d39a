#include "graphrf/mpi/ghost_exchange.hpp"

namespace graphrf {

namespace {
constexpr int kGhostTag = 7301;
}

GhostExchange::GhostExchange(const Communicator& comm, const BlockDistribution& dist,
                             std::span<const std::int64_t> ghosts)
    : comm_(&comm) {
  const auto p = static_cast<size_t>(comm.size());
  Counts request_counts(p, 0);
  for (std::int64_t g : ghosts) ++request_counts[static_cast<size_t>(dist.owner(g))];
  std::int64_t offset = 0;
  for (size_t r = 0; r < p; ++r) {
    if (request_counts[r] > 0) {
      recv_ranks_.push_back(static_cast<int>(r));
      recv_offset_.push_back(offset);
      recv_count_.push_back(request_counts[r]);
    }
    offset += request_counts[r];
  }
  // Tell each owner which of its nodes we need (ghosts are already grouped by owner, in order).
  Counts asked_counts;
  const auto asked = comm.alltoallv(ghosts, request_counts, &asked_counts);
  const std::int64_t first = dist.first(comm.rank());
  send_local_.reserve(asked.size());
  for (std::int64_t g : asked) send_local_.push_back(g - first);
  offset = 0;
  for (size_t r = 0; r < p; ++r) {
    if (asked_counts[r] > 0) {
      send_ranks_.push_back(static_cast<int>(r));
      send_offset_.push_back(offset);
      send_count_.push_back(asked_counts[r]);
    }
    offset += asked_counts[r];
  }
}

void GhostExchange::exchange_bytes(const void* send, void* recv, size_t bytes_per_value) const {
  const std::int64_t chunk = Communicator::max_message_bytes();
  std::vector<MPI_Request> requests;
  auto post = [&](bool is_send, int peer, char* base, std::int64_t bytes) {
    for (std::int64_t off = 0; off < bytes; off += chunk) {
      const int n = static_cast<int>(std::min(chunk, bytes - off));
      requests.emplace_back();
      if (is_send)
        check_mpi(MPI_Isend(base + off, n, MPI_BYTE, peer, kGhostTag, comm_->get(), &requests.back()), "MPI_Isend");
      else
        check_mpi(MPI_Irecv(base + off, n, MPI_BYTE, peer, kGhostTag, comm_->get(), &requests.back()), "MPI_Irecv");
    }
  };
  auto* recv_bytes = static_cast<char*>(recv);
  auto* send_bytes = const_cast<char*>(static_cast<const char*>(send));
  const auto bpv = static_cast<std::int64_t>(bytes_per_value);
  for (size_t i = 0; i < recv_ranks_.size(); ++i)
    post(false, recv_ranks_[i], recv_bytes + recv_offset_[i] * bpv, recv_count_[i] * bpv);
  for (size_t i = 0; i < send_ranks_.size(); ++i) {
    post(true, send_ranks_[i], send_bytes + send_offset_[i] * bpv, send_count_[i] * bpv);
    count_sent_bytes(send_count_[i] * bpv);
  }
  check_mpi(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
}

}  // namespace graphrf
