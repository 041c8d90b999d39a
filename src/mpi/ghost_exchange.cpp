#include "graphrf/mpi/ghost_exchange.hpp"

#include <algorithm>

namespace graphrf {

namespace {
constexpr int kGhostTag = 7301;
}

GhostExchange::GhostExchange(const Communicator& comm, const BlockDistribution& dist,
                             std::span<const std::int64_t> ghosts)
    : comm_(&comm), ghosts_(ghosts.begin(), ghosts.end()), first_(dist.first(comm.rank())) {
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

std::byte* GhostExchange::HostPlan::slice(size_t bytes_per_value) const {
  if (bytes_per_value > value_bytes) {  // the same on every rank: they exchange the same type and width
    value_bytes = (bytes_per_value + 7) / 8 * 8;  // slices stay aligned for every type of up to 8 bytes
    values = SharedArray<std::byte>(hosts->host(), static_cast<std::int64_t>(published.size() * value_bytes));
  }
  return values.mine();
}

const GhostExchange::HostPlan* GhostExchange::host_plan(const std::shared_ptr<const HostTopology>& hosts) const {
  if (!hosts || !hosts->sharing()) return nullptr;
  if (host_plan_ && host_plan_->hosts == hosts) return host_plan_.get();
  auto plan = std::make_shared<HostPlan>();
  plan->hosts = hosts;
  const Communicator& host = hosts->host();
  const int host_first_rank = hosts->first_rank(hosts->index());
  for (size_t r = 0; r < send_ranks_.size(); ++r)
    if (hosts->same_host(send_ranks_[r]))
      plan->published.insert(plan->published.end(), send_local_.begin() + send_offset_[r],
                             send_local_.begin() + send_offset_[r] + send_count_[r]);
  std::sort(plan->published.begin(), plan->published.end());
  plan->published.erase(std::unique(plan->published.begin(), plan->published.end()), plan->published.end());
  // Each reader finds its ghosts in its owner's published list (both ascending) through a shared copy of the lists.
  const std::vector<std::int64_t> sizes = host.allgather(static_cast<std::int64_t>(plan->published.size()));
  std::vector<std::int64_t> start(sizes.size() + 1, 0);
  for (size_t h = 0; h < sizes.size(); ++h) start[h + 1] = start[h] + sizes[h];
  const SharedArray<std::int64_t> ids(host, static_cast<std::int64_t>(plan->published.size()));
  for (size_t i = 0; i < plan->published.size(); ++i) ids.mine()[i] = first_ + plan->published[i];
  ids.synchronize();
  for (size_t r = 0; r < recv_ranks_.size(); ++r) {
    if (!hosts->same_host(recv_ranks_[r])) continue;
    const auto h = static_cast<size_t>(recv_ranks_[r] - host_first_rank);
    const std::int64_t* list = ids.data() + start[h];
    const std::int64_t* end = ids.data() + start[h + 1];
    const std::int64_t* at = list;
    for (auto slot = recv_offset_[r]; slot < recv_offset_[r] + recv_count_[r]; ++slot) {
      const std::int64_t ghost = ghosts_[static_cast<size_t>(slot)];
      at = std::lower_bound(at, end, ghost);
      if (at == end || *at != ghost) throw Error("GhostExchange: ghost " + std::to_string(ghost) + " is not published by its owner");
      plan->ghost_slot.push_back(slot);
      plan->ghost_owner.push_back(static_cast<int>(h));
      plan->owner_position.push_back(at - list);
    }
  }
  ids.synchronize();  // nobody frees the window while another rank still reads it
  host_plan_ = std::move(plan);
  return host_plan_.get();
}

void GhostExchange::exchange_bytes(const void* send, void* recv, size_t bytes_per_value, const HostTopology* hosts) const {
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
  const auto by_message = [&](int rank) { return !hosts || !hosts->same_host(rank); };
  for (size_t i = 0; i < recv_ranks_.size(); ++i)
    if (by_message(recv_ranks_[i])) post(false, recv_ranks_[i], recv_bytes + recv_offset_[i] * bpv, recv_count_[i] * bpv);
  for (size_t i = 0; i < send_ranks_.size(); ++i) {
    if (!by_message(send_ranks_[i])) continue;
    post(true, send_ranks_[i], send_bytes + send_offset_[i] * bpv, send_count_[i] * bpv);
    count_sent_bytes(send_count_[i] * bpv);
  }
  check_mpi(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
}

}  // namespace graphrf
