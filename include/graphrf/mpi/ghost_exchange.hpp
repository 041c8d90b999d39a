#pragma once
// Neighbour exchange of ghost values. A rank's ghosts are the remote nodes its owned rows point to, kept
// sorted by global index; because owners hold contiguous index ranges, the ghosts of one owner form one
// contiguous run and arrive in place. Only neighbouring ranks exchange messages (no all-to-all per call),
// and messages larger than Communicator::max_message_bytes() are sent in chunks.
#include <cstdint>
#include <span>
#include <vector>

#include "graphrf/mpi/block_distribution.hpp"
#include "graphrf/mpi/communicator.hpp"

namespace graphrf {

class GhostExchange {
 public:
  GhostExchange() = default;
  // Collective. `ghosts`: sorted, unique global indices not owned by this rank.
  GhostExchange(const Communicator& comm, const BlockDistribution& dist, std::span<const std::int64_t> ghosts);

  // Collective. owned: n_owned * width values (row-major); ghosts_out: n_ghosts * width values.
  template <class T>
  void exchange(std::span<const T> owned, std::span<T> ghosts_out, int width = 1) const {
    static_assert(std::is_trivially_copyable_v<T>);
    std::vector<T> send_buffer(send_local_.size() * static_cast<size_t>(width));
    for (size_t i = 0; i < send_local_.size(); ++i)
      for (int c = 0; c < width; ++c)
        send_buffer[i * static_cast<size_t>(width) + static_cast<size_t>(c)] =
            owned[static_cast<size_t>(send_local_[i]) * static_cast<size_t>(width) + static_cast<size_t>(c)];
    exchange_bytes(send_buffer.data(), ghosts_out.data(), sizeof(T) * static_cast<size_t>(width));
  }

  const std::vector<int>& send_ranks() const { return send_ranks_; }
  const std::vector<int>& recv_ranks() const { return recv_ranks_; }
  std::int64_t n_send_values() const { return static_cast<std::int64_t>(send_local_.size()); }

 private:
  void exchange_bytes(const void* send, void* recv, size_t bytes_per_value) const;

  const Communicator* comm_ = nullptr;
  std::vector<int> recv_ranks_;                   // owners of my ghosts
  std::vector<std::int64_t> recv_offset_, recv_count_;  // run of ghosts per recv rank
  std::vector<int> send_ranks_;                   // ranks that borrow my nodes
  std::vector<std::int64_t> send_offset_, send_count_;
  std::vector<std::int64_t> send_local_;          // local indices of owned nodes to send, grouped by send rank
};

}  // namespace graphrf
