#pragma once
// Communicator::alltoallv for ranks grouped into hosts (host_topology.hpp): what goes to a rank of my own host
// is written once into a shared window and copied out by its reader; only other hosts get messages. What
// arrives is ordered by source rank, exactly as alltoallv returns it, so callers that sum it in that order get
// the same bits on either path.
#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "graphrf/mpi/communicator.hpp"
#include "graphrf/mpi/host_topology.hpp"
#include "graphrf/mpi/shared_array.hpp"

namespace graphrf {

// Collective over comm. hosts null, or a host of one rank: plain alltoallv.
template <class T>
std::vector<T> host_alltoallv(const Communicator& comm, const HostTopology* hosts, std::span<const T> send,
                              const Counts& send_counts, Counts* recv_counts = nullptr) {
  if (!hosts || !hosts->sharing()) return comm.alltoallv(send, send_counts, recv_counts);
  const auto p = static_cast<size_t>(comm.size());
  const Communicator& host = hosts->host();
  const auto k = static_cast<size_t>(host.size());
  const auto first = static_cast<size_t>(hosts->first_rank(hosts->index()));
  std::vector<std::int64_t> displ(p + 1, 0);
  for (size_t d = 0; d < p; ++d) displ[d + 1] = displ[d] + send_counts[d];
  // The host's destinations are one run of ranks: the messages are what lies before and after it.
  Counts message_counts = send_counts;
  std::fill_n(message_counts.begin() + static_cast<std::ptrdiff_t>(first), k, 0);
  std::vector<T> message_send(send.begin(), send.begin() + displ[first]);
  message_send.insert(message_send.end(), send.begin() + displ[first + k], send.begin() + displ[p]);
  Counts message_recv_counts;
  const std::vector<T> messages = comm.alltoallv(message_send, message_counts, &message_recv_counts);
  message_send = {};

  // Each rank's slice: its counts for every host rank, then the values for them, in host rank order.
  const SharedArray<std::int64_t> counts(host, static_cast<std::int64_t>(k));
  const std::int64_t mine = displ[first + k] - displ[first];
  const SharedArray<T> values(host, mine);
  std::copy_n(send_counts.begin() + static_cast<std::ptrdiff_t>(first), k, counts.mine());
  std::copy_n(send.begin() + displ[first], mine, values.mine());
  counts.synchronize();
  values.synchronize();
  const auto me = static_cast<size_t>(host.rank());
  Counts rc = message_recv_counts;
  for (size_t h = 0; h < k; ++h) rc[first + h] = counts[static_cast<std::int64_t>(h * k + me)];
  std::int64_t total = 0;
  for (auto c : rc) total += c;
  std::vector<T> recv;
  recv.reserve(static_cast<size_t>(total));
  std::int64_t next_message = 0;
  for (size_t r = 0; r < p; ++r) {
    if (r < first || r >= first + k) {
      recv.insert(recv.end(), messages.begin() + next_message, messages.begin() + next_message + rc[r]);
      next_message += rc[r];
      continue;
    }
    const int writer = static_cast<int>(r - first);
    std::int64_t at = values.first(writer);  // the writer's values for host ranks before me come first
    for (size_t d = 0; d < me; ++d) at += counts[static_cast<std::int64_t>(static_cast<size_t>(writer) * k + d)];
    recv.insert(recv.end(), values.data() + at, values.data() + at + rc[r]);
  }
  values.synchronize();  // nobody frees the window while another rank still reads it
  if (recv_counts) *recv_counts = std::move(rc);
  return recv;
}

template <class T>
std::vector<T> host_alltoallv(const Communicator& comm, const HostTopology* hosts, const std::vector<T>& send,
                              const Counts& send_counts, Counts* recv_counts = nullptr) {
  return host_alltoallv(comm, hosts, std::span<const T>(send), send_counts, recv_counts);
}

}  // namespace graphrf
