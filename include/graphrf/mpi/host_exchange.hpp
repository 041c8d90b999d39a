#pragma once
// An all-to-all for ranks grouped into hosts (host_topology.hpp) whose senders write straight into what receivers
// read: entries for a rank of my own host go into my slice of a shared window, where their reader finds them in
// place; only entries for other hosts travel by message. No entry is copied on a host, against three copies
// (the sender's buffer, the window, the reader's vector) through host_alltoallv: on random:1000000:10 at np 2,
// attention's key pass moved 64 MB a rank that way.
#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "graphrf/mpi/communicator.hpp"
#include "graphrf/mpi/host_topology.hpp"
#include "graphrf/mpi/shared_array.hpp"

namespace graphrf {

template <class T>
class HostExchange {
 public:
  // Collective over comm: this rank sends send_counts[d] entries to rank d. hosts null, or hosts of one rank:
  // every entry is a message.
  HostExchange(const Communicator& comm, const HostTopology* hosts, const Counts& send_counts)
      : comm_(comm), p_(static_cast<size_t>(comm.size())), send_counts_(send_counts), slot_(p_, nullptr), from_(p_) {
    const bool sharing = hosts && hosts->sharing();
    first_ = sharing ? static_cast<size_t>(hosts->first_rank(hosts->index())) : 0;
    k_ = sharing ? static_cast<size_t>(hosts->host().size()) : 0;
    message_counts_ = send_counts;
    std::fill_n(message_counts_.begin() + static_cast<std::ptrdiff_t>(first_), k_, 0);
    std::int64_t messages = 0, on_host = 0;
    for (size_t d = 0; d < p_; ++d) messages += message_counts_[d];
    for (size_t h = 0; h < k_; ++h) on_host += send_counts[first_ + h];
    message_send_.resize(static_cast<size_t>(messages));
    if (sharing) {
      // Each rank's slice: its counts for every host rank in one window, its entries for them, in host rank
      // order, in another.
      counts_ = SharedArray<std::int64_t>(hosts->host(), static_cast<std::int64_t>(k_));
      values_ = SharedArray<T>(hosts->host(), on_host);
      std::copy_n(send_counts.begin() + static_cast<std::ptrdiff_t>(first_), k_, counts_.mine());
    }
    T* next_message = message_send_.data();
    T* next_on_host = values_.mine();
    for (size_t d = 0; d < p_; ++d) {
      const bool host_peer = d >= first_ && d < first_ + k_;
      T*& next = host_peer ? next_on_host : next_message;
      slot_[d] = next;
      next += send_counts[d];
    }
  }

  // Where this rank writes its send_counts[d] entries for rank d, before exchange().
  T* to(int d) const { return slot_[static_cast<size_t>(d)]; }

  // Writes `send`, the entries for every rank one after another in rank order, where to() says.
  void put(std::span<const T> send) const {
    const T* next = send.data();
    for (size_t d = 0; d < p_; ++d) {
      std::copy_n(next, send_counts_[d], to(static_cast<int>(d)));
      next += send_counts_[d];
    }
  }

  // Collective over comm: every rank's entries are sent or visible to their readers.
  void exchange() {
    Counts recv_counts;
    messages_ = comm_.alltoallv(message_send_, message_counts_, &recv_counts);
    message_send_ = {};
    std::int64_t next_message = 0;
    for (size_t s = 0; s < p_; ++s) {
      if (s >= first_ && s < first_ + k_) continue;
      from_[s] = std::span<const T>(messages_.data() + next_message, static_cast<size_t>(recv_counts[s]));
      next_message += recv_counts[s];
    }
    if (k_ == 0) return;
    counts_.synchronize();
    values_.synchronize();
    const size_t me = static_cast<size_t>(comm_.rank()) - first_;
    for (size_t writer = 0; writer < k_; ++writer) {
      std::int64_t at = values_.first(static_cast<int>(writer));  // the writer's entries for host ranks before me
      for (size_t d = 0; d < me; ++d) at += counts_[static_cast<std::int64_t>(writer * k_ + d)];
      from_[first_ + writer] = std::span<const T>(values_.data() + at,
                                                  static_cast<size_t>(counts_[static_cast<std::int64_t>(writer * k_ + me)]));
    }
  }

  // What rank s sent this rank, after exchange(): in place in the host's window for a host peer (valid while this
  // object lives), else as received.
  std::span<const T> from(int s) const { return from_[static_cast<size_t>(s)]; }

  // Whether entries for rank d travel by message (to another host).
  bool by_message(int d) const { return static_cast<size_t>(d) < first_ || static_cast<size_t>(d) >= first_ + k_; }

  // Collective over the host when it shares: no rank frees the window while another still reads its entries.
  ~HostExchange() {
    if (k_ > 0) values_.synchronize();
  }
  HostExchange(const HostExchange&) = delete;
  HostExchange& operator=(const HostExchange&) = delete;

 private:
  const Communicator& comm_;
  size_t p_, first_ = 0, k_ = 0;
  Counts send_counts_, message_counts_;
  std::vector<T> message_send_, messages_;
  SharedArray<std::int64_t> counts_;
  SharedArray<T> values_;
  std::vector<T*> slot_;
  std::vector<std::span<const T>> from_;
};

}  // namespace graphrf
