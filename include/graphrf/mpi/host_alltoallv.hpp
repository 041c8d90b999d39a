#pragma once
// Communicator::alltoallv for ranks grouped into hosts (host_topology.hpp): what goes to a rank of my own host
// is written once into a shared window and copied out by its reader; only other hosts get messages (callers
// that can write and read the entries in place use HostExchange and skip both copies). What arrives is ordered
// by source rank, exactly as alltoallv returns it, so callers that sum it in that order get the same bits on
// either path.
#include <cstdint>
#include <numeric>
#include <span>
#include <vector>

#include "graphrf/mpi/communicator.hpp"
#include "graphrf/mpi/host_exchange.hpp"
#include "graphrf/mpi/host_topology.hpp"

namespace graphrf {

// Collective over comm. hosts null, or a host of one rank: plain alltoallv.
template <class T>
std::vector<T> host_alltoallv(const Communicator& comm, const HostTopology* hosts, std::span<const T> send,
                              const Counts& send_counts, Counts* recv_counts = nullptr) {
  if (!hosts || !hosts->sharing()) return comm.alltoallv(send, send_counts, recv_counts);
  HostExchange<T> exchange(comm, hosts, send_counts);
  exchange.put(send);
  exchange.exchange();
  Counts rc(static_cast<size_t>(comm.size()));
  std::vector<T> recv;
  for (int s = 0; s < comm.size(); ++s) rc[static_cast<size_t>(s)] = static_cast<std::int64_t>(exchange.from(s).size());
  recv.reserve(static_cast<size_t>(std::accumulate(rc.begin(), rc.end(), std::int64_t{0})));
  for (int s = 0; s < comm.size(); ++s) recv.insert(recv.end(), exchange.from(s).begin(), exchange.from(s).end());
  if (recv_counts) *recv_counts = std::move(rc);
  return recv;
}

template <class T>
std::vector<T> host_alltoallv(const Communicator& comm, const HostTopology* hosts, const std::vector<T>& send,
                              const Counts& send_counts, Counts* recv_counts = nullptr) {
  return host_alltoallv(comm, hosts, std::span<const T>(send), send_counts, recv_counts);
}

}  // namespace graphrf
