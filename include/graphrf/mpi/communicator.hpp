#pragma once
// Thin typed wrapper over an MPI communicator. Every MPI return code is checked and turned into an
// MpiError carrying MPI_Error_string. Counts are 64-bit in the interface: alltoallv falls back to chunked
// point-to-point messages when a count or displacement would overflow MPI's int.
#include <mpi.h>

#include <cstdint>
#include <algorithm>
#include <cstring>
#include <functional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "graphrf/core/error.hpp"
#include "graphrf/mpi/traffic.hpp"

namespace graphrf {

void check_mpi(int code, const char* call);
// MPI_Error_string of an error code.
std::string mpi_error_text(int code);

template <class T>
MPI_Datatype mpi_datatype() {
  if constexpr (std::is_same_v<T, double>) return MPI_DOUBLE;
  else if constexpr (std::is_same_v<T, float>) return MPI_FLOAT;
  else if constexpr (std::is_same_v<T, std::int64_t>) return MPI_INT64_T;
  else if constexpr (std::is_same_v<T, std::uint64_t>) return MPI_UINT64_T;
  else if constexpr (std::is_same_v<T, std::int32_t>) return MPI_INT32_T;
  else if constexpr (std::is_same_v<T, std::uint32_t>) return MPI_UINT32_T;
  else if constexpr (std::is_same_v<T, char>) return MPI_CHAR;
  else if constexpr (std::is_same_v<T, std::uint8_t>) return MPI_UINT8_T;
  else static_assert(sizeof(T) == 0, "no MPI datatype for this type");
}

// Per-destination counts (in elements) of a personalised exchange.
using Counts = std::vector<std::int64_t>;

// A communicator either borrows an MPI_Comm (MPI_COMM_WORLD, one the caller frees) and copies freely, or owns
// one (made by duplicate()) and frees it when destroyed; an owner moves but is never copied.
class Communicator {
 public:
  // Wraps (does not own) an existing communicator, e.g. MPI_COMM_WORLD.
  explicit Communicator(MPI_Comm comm = MPI_COMM_WORLD);
  Communicator(const Communicator& other);  // throws Error for an owner
  Communicator& operator=(const Communicator& other);
  Communicator(Communicator&& other) noexcept;
  Communicator& operator=(Communicator&& other) noexcept;
  ~Communicator();

  // Collective. A private copy of this communicator (MPI_Comm_dup), owned by the result: messages sent on it
  // never match receives posted on this one, whatever their tags.
  Communicator duplicate() const;
  // Collective. The ranks with the same colour, ordered by key then rank (MPI_Comm_split), owned by the result.
  Communicator split(int color, int key) const;
  // Collective. The ranks that share memory with this one (MPI_COMM_TYPE_SHARED), in rank order, owned.
  Communicator split_shared() const;
  bool owns() const { return owned_; }

  MPI_Comm get() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  bool is_root() const { return rank_ == 0; }

  void barrier() const;

  template <class T>
  T allreduce(T value, MPI_Op op) const {
    T out{};
    check_mpi(MPI_Allreduce(&value, &out, 1, mpi_datatype<T>(), op, comm_), "MPI_Allreduce");
    if (size_ > 1) count_sent_bytes(sizeof(T));
    return out;
  }
  template <class T>
  std::vector<T> allreduce(std::vector<T> values, MPI_Op op) const {
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), mpi_datatype<T>(), op, comm_),
              "MPI_Allreduce");
    if (size_ > 1) count_sent_bytes(static_cast<std::int64_t>(values.size() * sizeof(T)));
    return values;
  }
  template <class T>
  T sum(T v) const { return allreduce(v, MPI_SUM); }
  template <class T>
  std::vector<T> sum(std::vector<T> values) const { return allreduce(std::move(values), MPI_SUM); }
  template <class T>
  T min(T v) const { return allreduce(v, MPI_MIN); }
  template <class T>
  T max(T v) const { return allreduce(v, MPI_MAX); }

  // Exclusive prefix sum over ranks (0 on rank 0).
  template <class T>
  T exscan_sum(T value) const {
    T out{};
    check_mpi(MPI_Exscan(&value, &out, 1, mpi_datatype<T>(), MPI_SUM, comm_), "MPI_Exscan");
    return rank_ == 0 ? T{} : out;
  }
  // Elementwise exclusive prefix sum of a vector over ranks.
  template <class T>
  std::vector<T> exscan_sum(const std::vector<T>& values) const {
    std::vector<T> out(values.size(), T{});
    check_mpi(MPI_Exscan(values.data(), out.data(), static_cast<int>(values.size()), mpi_datatype<T>(), MPI_SUM, comm_),
              "MPI_Exscan");
    if (rank_ == 0) std::fill(out.begin(), out.end(), T{});
    return out;
  }

  template <class T>
  std::vector<T> allgather(T value) const {
    std::vector<T> out(static_cast<size_t>(size_));
    check_mpi(MPI_Allgather(&value, 1, mpi_datatype<T>(), out.data(), 1, mpi_datatype<T>(), comm_), "MPI_Allgather");
    return out;
  }

  template <class T>
  void broadcast(T& value, int root = 0) const {
    static_assert(std::is_trivially_copyable_v<T>);
    check_mpi(MPI_Bcast(&value, static_cast<int>(sizeof(T)), MPI_BYTE, root, comm_), "MPI_Bcast");
    if (rank_ == root) count_sent_bytes(static_cast<std::int64_t>(sizeof(T)) * (size_ - 1));
  }
  void broadcast(std::string& value, int root = 0) const;
  template <class T>
  void broadcast(std::vector<T>& values, int root = 0) const {
    static_assert(std::is_trivially_copyable_v<T>);
    std::int64_t n = static_cast<std::int64_t>(values.size());
    broadcast(n, root);
    values.resize(static_cast<size_t>(n));
    broadcast_bytes(values.data(), n * static_cast<std::int64_t>(sizeof(T)), root);
  }

  // Personalised all-to-all: send[displ(d) .. displ(d)+send_counts[d]) goes to rank d. Returns what arrived,
  // ordered by source rank; recv_counts (if given) receives the per-source counts.
  template <class T>
  std::vector<T> alltoallv(std::span<const T> send, const Counts& send_counts, Counts* recv_counts = nullptr) const {
    static_assert(std::is_trivially_copyable_v<T>);
    Counts rc = exchange_counts(send_counts);
    std::int64_t total = 0;
    for (auto c : rc) total += c;
    std::vector<T> recv(static_cast<size_t>(total));
    alltoallv_bytes(send.data(), send_counts, recv.data(), rc, sizeof(T));
    if (recv_counts) *recv_counts = std::move(rc);
    return recv;
  }
  template <class T>
  std::vector<T> alltoallv(const std::vector<T>& send, const Counts& send_counts, Counts* recv_counts = nullptr) const {
    return alltoallv(std::span<const T>(send), send_counts, recv_counts);
  }

  // The same exchange into a buffer the caller sized from exchange_counts (recv_counts): what arrives fills recv
  // in source rank order. Lets a caller receive behind records it already holds, without a second array.
  template <class T>
  void alltoallv_into(std::span<const T> send, const Counts& send_counts, std::span<T> recv, const Counts& recv_counts) const {
    static_assert(std::is_trivially_copyable_v<T>);
    std::int64_t total = 0;
    for (auto c : recv_counts) total += c;
    if (static_cast<std::int64_t>(recv.size()) != total)
      throw Error("alltoallv_into: receive buffer of " + std::to_string(recv.size()) + " elements for " + std::to_string(total));
    alltoallv_bytes(send.data(), send_counts, recv.data(), recv_counts, sizeof(T));
  }

  // Tells each rank how many elements every other rank will send it.
  Counts exchange_counts(const Counts& send_counts) const;

  // Every rank holds `data` laid out as consecutive blocks, rank r's of block_bytes[r] bytes, and has written its
  // own: afterwards every rank holds all of them. One chunked broadcast per rank (no int count limit).
  void allgather_blocks_in_place(void* data, const Counts& block_bytes) const;

  // Largest message (bytes) sent in one MPI call by the chunked paths. Tests lower it to exercise chunking.
  static void set_max_message_bytes(std::int64_t bytes);
  static std::int64_t max_message_bytes();

 private:
  void broadcast_bytes(void* data, std::int64_t bytes, int root) const;
  void alltoallv_bytes(const void* send, const Counts& send_counts, void* recv, const Counts& recv_counts,
                       std::size_t elem_size) const;

  void release() noexcept;

  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
  bool owned_ = false;
};

// Runs fn on every rank. If it throws on any rank, every rank throws the same collective InputError
// carrying the message of the lowest failing rank, so all ranks can exit cleanly with one line printed.
void collective_try(const Communicator& comm, const std::function<void()>& fn);

}  // namespace graphrf
