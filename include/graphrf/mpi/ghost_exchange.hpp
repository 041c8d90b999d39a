#pragma once
// Neighbour exchange of ghost values. A rank's ghosts are the remote nodes its owned rows point to, kept
// sorted by global index; because owners hold contiguous index ranges, the ghosts of one owner form one
// contiguous run and arrive in place. Only neighbouring ranks exchange messages (no all-to-all per call),
// and messages larger than Communicator::max_message_bytes() are sent in chunks.
//
// Given the hosts (host_topology.hpp), ghosts owned by ranks of my host are read from shared memory instead:
// every rank publishes, in its slice of a shared window kept between calls, the values of the owned nodes its
// host peers borrow, and each reader copies its ghosts from there. Only other hosts get messages. The values
// are copies either way, so results have the same bits on both paths.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <type_traits>
#include <vector>

#include "graphrf/mpi/block_distribution.hpp"
#include "graphrf/mpi/communicator.hpp"
#include "graphrf/mpi/host_topology.hpp"
#include "graphrf/mpi/shared_array.hpp"

namespace graphrf {

class GhostExchange {
 public:
  GhostExchange() = default;
  // Collective. `ghosts`: sorted, unique global indices not owned by this rank.
  GhostExchange(const Communicator& comm, const BlockDistribution& dist, std::span<const std::int64_t> ghosts);

  // Collective (every rank passes the same hosts, T and width). owned: n_owned * width values (row-major);
  // ghosts_out: n_ghosts * width values. hosts null, or no host of several ranks: messages only.
  template <class T>
  void exchange(std::span<const T> owned, std::span<T> ghosts_out, int width = 1,
                const std::shared_ptr<const HostTopology>& hosts = {}) const {
    const auto w = static_cast<size_t>(width);
    exchange_rows<T>([&](std::int64_t local, T* out) { std::copy_n(owned.data() + local * width, w, out); }, ghosts_out,
                     width, hosts);
  }

  // The same, for owned rows held in any layout: read_row(local index, T* out) writes that row's width values.
  // Only the rows others borrow are read (a product that needs few remote rows does not convert a whole block).
  template <class T, class ReadRow>
  void exchange_rows(ReadRow&& read_row, std::span<T> ghosts_out, int width = 1,
                     const std::shared_ptr<const HostTopology>& hosts = {}) const {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto w = static_cast<size_t>(width);
    const HostPlan* plan = host_plan(hosts);
    if (!plan) {
      exchange_by_message(read_row, ghosts_out, width, nullptr);
      return;
    }
    T* published = reinterpret_cast<T*>(plan->slice(sizeof(T) * w));
    for (size_t i = 0; i < plan->published.size(); ++i) read_row(plan->published[i], published + i * w);
    plan->values.synchronize();
    for (size_t k = 0; k < plan->ghost_slot.size(); ++k) {
      const auto* slice = reinterpret_cast<const T*>(plan->values.data() + plan->values.first(plan->ghost_owner[k]));
      std::copy_n(slice + plan->owner_position[k] * width, w, ghosts_out.data() + plan->ghost_slot[k] * width);
    }
    exchange_by_message(read_row, ghosts_out, width, plan->hosts.get());
    plan->values.synchronize();  // every reader is done before the next exchange overwrites the slices
  }

  // Only the ghosts that other hosts own, by message (not collective over the host: only ranks that exchange rows
  // take part); the slots of ghosts owned by host peers are left unwritten. For products that read the host
  // peers' rows in place, from panels the host shares.
  template <class T, class ReadRow>
  void exchange_rows_between_hosts(ReadRow&& read_row, std::span<T> ghosts_out, int width, const HostTopology& hosts) const {
    exchange_by_message(read_row, ghosts_out, width, &hosts);
  }

  const std::vector<int>& send_ranks() const { return send_ranks_; }
  const std::vector<int>& recv_ranks() const { return recv_ranks_; }
  std::int64_t n_send_values() const { return static_cast<std::int64_t>(send_local_.size()); }

 private:
  // What the shared path needs for one set of hosts: built on the first exchange that uses them.
  struct HostPlan {
    std::shared_ptr<const HostTopology> hosts;
    std::vector<std::int64_t> published;     // local indices of owned nodes that host peers borrow, ascending
    std::vector<std::int64_t> ghost_slot;      // my ghosts owned by host peers: slot in ghosts_out,
    std::vector<int> ghost_owner;              // host rank of the owner
    std::vector<std::int64_t> owner_position;  // and position in the owner's published list
    mutable SharedArray<std::byte> values;     // slices of published.size() values, grown to the widest value
    mutable size_t value_bytes = 0;
    std::byte* slice(size_t bytes_per_value) const;
  };
  // Packs the rows that travel by message (to every neighbour outside `hosts`' host; all of them when hosts is null)
  // and exchanges them; the runs of host peers stay unwritten on both sides.
  template <class T, class ReadRow>
  void exchange_by_message(ReadRow& read_row, std::span<T> ghosts_out, int width, const HostTopology* hosts) const {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto w = static_cast<size_t>(width);
    auto send_buffer = std::make_unique_for_overwrite<T[]>(send_local_.size() * w);
    for (size_t r = 0; r < send_ranks_.size(); ++r) {
      if (hosts && hosts->same_host(send_ranks_[r])) continue;
      for (auto i = send_offset_[r]; i < send_offset_[r] + send_count_[r]; ++i)
        read_row(send_local_[static_cast<size_t>(i)], send_buffer.get() + static_cast<size_t>(i) * w);
    }
    exchange_bytes(send_buffer.get(), ghosts_out.data(), sizeof(T) * w, hosts);
  }
  // The plan for hosts (built collectively when it changes), or null when nothing is shared.
  const HostPlan* host_plan(const std::shared_ptr<const HostTopology>& hosts) const;
  // Messages to and from the ranks outside `hosts`' host (every neighbour when hosts is null).
  void exchange_bytes(const void* send, void* recv, size_t bytes_per_value, const HostTopology* hosts) const;

  const Communicator* comm_ = nullptr;
  std::vector<int> recv_ranks_;                   // owners of my ghosts
  std::vector<std::int64_t> recv_offset_, recv_count_;  // run of ghosts per recv rank
  std::vector<int> send_ranks_;                   // ranks that borrow my nodes
  std::vector<std::int64_t> send_offset_, send_count_;
  std::vector<std::int64_t> send_local_;          // local indices of owned nodes to send, grouped by send rank
  std::vector<std::int64_t> ghosts_;              // the ghosts' global indices (for the shared path's plan)
  std::int64_t first_ = 0;                        // my first global index
  mutable std::shared_ptr<HostPlan> host_plan_;
};

}  // namespace graphrf
