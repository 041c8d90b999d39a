#pragma once
// Which ranks share a machine. Ranks that share memory form a host: what every rank of a host reads (the walk
// table, the rows and vectors of distributed products) lives once per host in shared windows (shared_array.hpp),
// and messages travel only between hosts. Hosts are runs of consecutive ranks, as mpirun and srun place the ranks
// of a node by default. A host size K > 0 splits each machine further into hosts of K consecutive ranks, so that
// one machine runs exactly the paths of a cluster (K = 1: every rank its own host, all traffic by message).
#include <string>
#include <vector>

#include "graphrf/mpi/communicator.hpp"

namespace graphrf {

class HostTopology {
 public:
  // One rank on its own (no MPI traffic at all).
  HostTopology();
  // Collective over comm. host_size 0: the machines MPI reports (MPI_COMM_TYPE_SHARED); K > 0: hosts of K
  // consecutive ranks within each machine. Falls back to one host per rank, with note() saying why, when shared
  // windows cannot be allocated or a machine's ranks are not consecutive.
  HostTopology(const Communicator& comm, int host_size);
  HostTopology(HostTopology&&) noexcept = default;
  HostTopology& operator=(HostTopology&&) noexcept = default;

  // The ranks of this rank's host, in rank order (host rank i is comm rank first_rank(index()) + i).
  const Communicator& host() const { return host_; }
  int size() const { return host_.size(); }
  int count() const { return static_cast<int>(first_rank_.size()) - 1; }
  int index() const { return host_of(rank_); }
  int host_of(int rank) const;
  int first_rank(int host) const { return first_rank_[static_cast<size_t>(host)]; }
  int end_rank(int host) const { return first_rank_[static_cast<size_t>(host) + 1]; }
  bool same_host(int rank) const { return host_of(rank) == index(); }
  // Whether any host has more than one rank (shared windows are in use somewhere).
  bool sharing() const { return largest_ > 1; }
  int largest_host() const { return largest_; }
  // Why sharing is off although it was asked for (one line), or empty.
  const std::string& note() const { return note_; }
  // "2 hosts of 2 ranks" / "1 host of 3 ranks" / "hosts of 2, 1 ranks", for logs.
  std::string summary() const;

 private:
  Communicator host_;
  int rank_ = 0;
  int largest_ = 1;
  std::vector<int> first_rank_{0, 1};
  std::vector<int> host_of_rank_{0};
  std::string note_;
};

}  // namespace graphrf
