#include "graphrf/mpi/communicator.hpp"

#include <climits>
#include <exception>
#include <new>

#include "graphrf/core/run_phase.hpp"

namespace graphrf {

namespace {
std::int64_t g_max_message_bytes = std::int64_t{1} << 30;  // 1 GiB per MPI call on the chunked path
constexpr int kChunkTag = 7201;
}  // namespace

std::string mpi_error_text(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(code, text, &len);
  return std::string(text, static_cast<size_t>(len));
}

void check_mpi(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  throw MpiError(std::string(call) + " failed: " + mpi_error_text(code));
}

Communicator::Communicator(MPI_Comm comm) : comm_(comm) {
  check_mpi(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
}

Communicator::Communicator(const Communicator& other) : comm_(other.comm_), rank_(other.rank_), size_(other.size_) {
  if (other.owned_) throw Error("an owning Communicator is not copied (pass it by reference or move it)");
}

Communicator& Communicator::operator=(const Communicator& other) {
  if (this == &other) return *this;
  if (other.owned_) throw Error("an owning Communicator is not copied (pass it by reference or move it)");
  release();
  comm_ = other.comm_;
  rank_ = other.rank_;
  size_ = other.size_;
  return *this;
}

Communicator::Communicator(Communicator&& other) noexcept
    : comm_(other.comm_), rank_(other.rank_), size_(other.size_), owned_(other.owned_) {
  other.owned_ = false;
}

Communicator& Communicator::operator=(Communicator&& other) noexcept {
  if (this == &other) return *this;
  release();
  comm_ = other.comm_;
  rank_ = other.rank_;
  size_ = other.size_;
  owned_ = other.owned_;
  other.owned_ = false;
  return *this;
}

Communicator::~Communicator() { release(); }

// A destructor may not throw: a failing MPI_Comm_free (only after an MPI error elsewhere) is ignored.
// Objects that outlive MPI (a Python graph freed at interpreter exit, after MPI_Finalize) must not free: MPI
// forbids any call but a few after finalisation, and its resources are gone with it anyway.
void Communicator::release() noexcept {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (owned_ && !finalized) MPI_Comm_free(&comm_);
  owned_ = false;
}

Communicator Communicator::duplicate() const {
  MPI_Comm copy;
  check_mpi(MPI_Comm_dup(comm_, &copy), "MPI_Comm_dup");
  Communicator owner(copy);
  owner.owned_ = true;
  return owner;
}

Communicator Communicator::split(int color, int key) const {
  MPI_Comm part;
  check_mpi(MPI_Comm_split(comm_, color, key, &part), "MPI_Comm_split");
  Communicator owner(part);
  owner.owned_ = true;
  return owner;
}

Communicator Communicator::split_shared() const {
  MPI_Comm part;
  check_mpi(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &part), "MPI_Comm_split_type");
  Communicator owner(part);
  owner.owned_ = true;
  return owner;
}

void Communicator::barrier() const { check_mpi(MPI_Barrier(comm_), "MPI_Barrier"); }

void Communicator::set_max_message_bytes(std::int64_t bytes) { g_max_message_bytes = bytes; }
std::int64_t Communicator::max_message_bytes() { return g_max_message_bytes; }

void Communicator::broadcast(std::string& value, int root) const {
  std::vector<char> buf(value.begin(), value.end());
  broadcast(buf, root);
  value.assign(buf.begin(), buf.end());
}

void Communicator::broadcast_bytes(void* data, std::int64_t bytes, int root) const {
  auto* p = static_cast<char*>(data);
  for (std::int64_t done = 0; done < bytes;) {
    const auto n = std::min<std::int64_t>(bytes - done, g_max_message_bytes);
    check_mpi(MPI_Bcast(p + done, static_cast<int>(n), MPI_BYTE, root, comm_), "MPI_Bcast");
    done += n;
  }
  if (rank_ == root) count_sent_bytes(bytes * (size_ - 1));
}

void Communicator::allgather_blocks_in_place(void* data, const Counts& block_bytes) const {
  if (static_cast<int>(block_bytes.size()) != size_) throw Error("allgather_blocks_in_place: block_bytes has wrong length");
  std::int64_t offset = 0;
  for (int r = 0; r < size_; ++r) {
    broadcast_bytes(static_cast<char*>(data) + offset, block_bytes[static_cast<size_t>(r)], r);
    offset += block_bytes[static_cast<size_t>(r)];
  }
}

Counts Communicator::exchange_counts(const Counts& send_counts) const {
  if (static_cast<int>(send_counts.size()) != size_) throw Error("alltoallv: send_counts has wrong length");
  Counts recv(static_cast<size_t>(size_));
  check_mpi(MPI_Alltoall(send_counts.data(), 1, MPI_INT64_T, recv.data(), 1, MPI_INT64_T, comm_), "MPI_Alltoall");
  count_sent_bytes(static_cast<std::int64_t>(sizeof(std::int64_t)) * (size_ - 1));
  return recv;
}

void Communicator::alltoallv_bytes(const void* send, const Counts& send_counts, void* recv, const Counts& recv_counts,
                                   std::size_t elem_size) const {
  const auto p = static_cast<size_t>(size_);
  std::vector<std::int64_t> sdispl(p + 1, 0), rdispl(p + 1, 0);
  for (size_t r = 0; r < p; ++r) {
    sdispl[r + 1] = sdispl[r] + send_counts[r];
    rdispl[r + 1] = rdispl[r] + recv_counts[r];
  }
  count_sent_bytes((sdispl[p] - send_counts[static_cast<size_t>(rank_)]) * static_cast<std::int64_t>(elem_size));
  // MPI_Alltoallv takes int counts and displacements (in units of one element type). Use it when
  // everything fits on every rank; otherwise all ranks switch to chunked point-to-point together.
  const std::int64_t limit = std::min<std::int64_t>(INT_MAX, g_max_message_bytes / static_cast<std::int64_t>(elem_size));
  const int fits_here = (sdispl[p] <= limit && rdispl[p] <= limit) ? 1 : 0;
  const int fits = allreduce(fits_here, MPI_MIN);
  if (fits) {
    MPI_Datatype elem;
    check_mpi(MPI_Type_contiguous(static_cast<int>(elem_size), MPI_BYTE, &elem), "MPI_Type_contiguous");
    check_mpi(MPI_Type_commit(&elem), "MPI_Type_commit");
    std::vector<int> sc(p), sd(p), rc(p), rd(p);
    for (size_t r = 0; r < p; ++r) {
      sc[r] = static_cast<int>(send_counts[r]);
      sd[r] = static_cast<int>(sdispl[r]);
      rc[r] = static_cast<int>(recv_counts[r]);
      rd[r] = static_cast<int>(rdispl[r]);
    }
    const int code = MPI_Alltoallv(send, sc.data(), sd.data(), elem, recv, rc.data(), rd.data(), elem, comm_);
    MPI_Type_free(&elem);
    check_mpi(code, "MPI_Alltoallv");
    return;
  }
  // Chunked path: every (source, destination) block is cut into messages of at most g_max_message_bytes.
  const auto* sp = static_cast<const char*>(send);
  auto* rp = static_cast<char*>(recv);
  std::vector<MPI_Request> reqs;
  for (size_t r = 0; r < p; ++r) {
    const std::int64_t bytes = recv_counts[r] * static_cast<std::int64_t>(elem_size);
    for (std::int64_t off = 0; off < bytes; off += g_max_message_bytes) {
      const auto n = std::min(g_max_message_bytes, bytes - off);
      reqs.emplace_back();
      check_mpi(MPI_Irecv(rp + rdispl[r] * static_cast<std::int64_t>(elem_size) + off, static_cast<int>(n), MPI_BYTE,
                          static_cast<int>(r), kChunkTag, comm_, &reqs.back()),
                "MPI_Irecv");
    }
  }
  for (size_t r = 0; r < p; ++r) {
    const std::int64_t bytes = send_counts[r] * static_cast<std::int64_t>(elem_size);
    for (std::int64_t off = 0; off < bytes; off += g_max_message_bytes) {
      const auto n = std::min(g_max_message_bytes, bytes - off);
      reqs.emplace_back();
      check_mpi(MPI_Isend(sp + sdispl[r] * static_cast<std::int64_t>(elem_size) + off, static_cast<int>(n), MPI_BYTE,
                          static_cast<int>(r), kChunkTag, comm_, &reqs.back()),
                "MPI_Isend");
    }
  }
  check_mpi(MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
}

void collective_try(const Communicator& comm, const std::function<void()>& fn) {
  std::string message;
  bool failed = false;
  auto kind = static_cast<std::int32_t>(InputError::Kind::input);
  try {
    fn();
  } catch (const InputError& e) {
    if (e.collective()) throw;  // already agreed on by every rank
    failed = true;
    message = e.what();
    kind = static_cast<std::int32_t>(e.kind());
  } catch (const std::bad_alloc&) {
    failed = true;
    message = out_of_memory_message();
  } catch (const std::exception& e) {
    failed = true;
    message = e.what();
  }
  const int first_failing = comm.allreduce(failed ? comm.rank() : comm.size(), MPI_MIN);
  if (first_failing == comm.size()) return;
  comm.broadcast(message, first_failing);
  comm.broadcast(kind, first_failing);
  throw InputError(message, /*collective=*/true, static_cast<InputError::Kind>(kind));
}

}  // namespace graphrf
