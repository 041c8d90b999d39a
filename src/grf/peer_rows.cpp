#include "graphrf/grf/peer_rows.hpp"

#include <algorithm>
#include <string>

#include "graphrf/core/error.hpp"
#include "graphrf/mpi/request.hpp"
#include "graphrf/mpi/traffic.hpp"

namespace graphrf {

namespace {

constexpr int kPeerRowsTag = 7403;

// A range's header: the owner's first local row, its rows, Phi's entries and M_t's (-1 when M_t is not kept).
struct RangeHeader {
  std::int64_t first_local, rows, phi_entries, m_entries;
};

RangeHeader header_of(const PeerRows& p) {
  const bool keep = !p.rows.by_length.indptr.empty();
  return {p.first_local, p.rows.phi.n_local(), static_cast<std::int64_t>(p.rows.phi.col.size()),
          keep ? static_cast<std::int64_t>(p.rows.by_length.col.size()) : -1};
}

// Non-blocking transfers of whole arrays, cut into messages of at most Communicator::max_message_bytes(). Both
// sides cut the same sizes the same way, and messages of one pair and tag arrive in the order they were sent.
class Transfers {
 public:
  explicit Transfers(const Communicator& comm) : comm_(comm) {}
  template <class T>
  void send(const T* data, std::int64_t count, int peer) {
    post(const_cast<T*>(data), count * static_cast<std::int64_t>(sizeof(T)), peer, true);
  }
  template <class T>
  void receive(T* data, std::int64_t count, int peer) {
    post(data, count * static_cast<std::int64_t>(sizeof(T)), peer, false);
  }
  void wait() {
    for (Request& r : requests_) r.wait();
    requests_.clear();
  }

 private:
  void post(void* data, std::int64_t bytes, int peer, bool send) {
    auto* p = static_cast<std::byte*>(data);
    for (std::int64_t done = 0; done < bytes;) {
      const auto n = std::min<std::int64_t>(bytes - done, Communicator::max_message_bytes());
      MPI_Request* request = requests_.emplace_back().start();
      if (send) {
        check_mpi(MPI_Isend(p + done, static_cast<int>(n), MPI_BYTE, peer, kPeerRowsTag, comm_.get(), request), "MPI_Isend");
        count_sent_bytes(n);
      } else {
        check_mpi(MPI_Irecv(p + done, static_cast<int>(n), MPI_BYTE, peer, kPeerRowsTag, comm_.get(), request), "MPI_Irecv");
      }
      done += n;
    }
  }
  const Communicator& comm_;
  std::vector<Request> requests_;
};

}  // namespace

// The rows travel straight from the arrays they were built in into the owner's output arrays at their final
// places (no packing, no receive buffer: on a machine where first touches of memory are dear, two extra copies of
// the moved rows cost more than the walks they balanced). Headers go first, in one small all-to-all, so that each
// owner can size its arrays and post its receives.
AssembledGrf return_peer_rows(const Communicator& comm, AssembledGrf own, std::int64_t own_rows_end, std::int64_t n_local,
                              std::vector<PeerRows> built_for_peers) {
  // Ascending by owner, then by row: the order of the messages to each owner.
  std::sort(built_for_peers.begin(), built_for_peers.end(), [](const PeerRows& a, const PeerRows& b) {
    return a.owner != b.owner ? a.owner < b.owner : a.first_local < b.first_local;
  });
  std::vector<RangeHeader> headers;
  Counts counts(static_cast<size_t>(comm.size()), 0);
  for (const PeerRows& p : built_for_peers) {
    headers.push_back(header_of(p));
    ++counts[static_cast<size_t>(p.owner)];
  }
  Counts from;
  const std::vector<RangeHeader> arriving = comm.alltoallv(headers, counts, &from);
  // Each arriving range's source; then all of them in row order, which must tile own_rows_end .. n_local - 1.
  struct Arrival {
    RangeHeader header;
    int source;
    std::int64_t phi_at = 0, m_at = 0;  // where its entries go in this rank's arrays
  };
  std::vector<Arrival> ranges;
  for (int r = 0, k = 0; r < comm.size(); ++r)
    for (std::int64_t c = 0; c < from[static_cast<size_t>(r)]; ++c)
      ranges.push_back({arriving[static_cast<size_t>(k++)], r});
  std::sort(ranges.begin(), ranges.end(),
            [](const Arrival& a, const Arrival& b) { return a.header.first_local < b.header.first_local; });
  const bool keep = !own.by_length.indptr.empty();
  std::int64_t rows = own_rows_end, phi_end = static_cast<std::int64_t>(own.phi.col.size()),
               m_end = static_cast<std::int64_t>(own.by_length.col.size());
  for (Arrival& a : ranges) {
    if (a.header.first_local != rows)
      throw Error("return_peer_rows: rows from " + std::to_string(a.header.first_local) + " arrived where row " +
                  std::to_string(rows) + " was due");
    if ((a.header.m_entries >= 0) != keep) throw Error("return_peer_rows: M_t kept by one rank and not by another");
    a.phi_at = phi_end;
    a.m_at = m_end;
    rows += a.header.rows;
    phi_end += a.header.phi_entries;
    m_end += std::max<std::int64_t>(a.header.m_entries, 0);
  }
  if (rows != n_local)
    throw Error("return_peer_rows: rows up to " + std::to_string(rows) + " arrived of " + std::to_string(n_local));
  SparseRows& phi = own.phi;
  LengthResolvedGrf& m = own.by_length;
  phi.indptr.resize(static_cast<size_t>(n_local) + 1);
  phi.col.resize(static_cast<size_t>(phi_end));
  phi.value.resize(static_cast<size_t>(phi_end));
  if (keep) {
    m.indptr.resize(static_cast<size_t>(n_local) + 1);
    m.col.resize(static_cast<size_t>(m_end));
    m.length.resize(static_cast<size_t>(m_end));
    m.value.resize(static_cast<size_t>(m_end));
  }
  // Receives per source in row order, sends per owner in row order: the same order on both ends of each pair.
  Transfers transfers(comm);
  std::stable_sort(ranges.begin(), ranges.end(), [](const Arrival& a, const Arrival& b) { return a.source < b.source; });
  for (const Arrival& a : ranges) {
    const auto row = static_cast<size_t>(a.header.first_local) + 1;  // a range's row ends, from 0 within it
    const auto phi_at = static_cast<size_t>(a.phi_at), m_at = static_cast<size_t>(a.m_at);
    transfers.receive(phi.indptr.data() + row, a.header.rows, a.source);
    transfers.receive(phi.col.data() + phi_at, a.header.phi_entries, a.source);
    transfers.receive(phi.value.data() + phi_at, a.header.phi_entries, a.source);
    if (!keep) continue;
    transfers.receive(m.indptr.data() + row, a.header.rows, a.source);
    transfers.receive(m.col.data() + m_at, a.header.m_entries, a.source);
    transfers.receive(m.length.data() + m_at, a.header.m_entries, a.source);
    transfers.receive(m.value.data() + m_at, a.header.m_entries, a.source);
  }
  for (const PeerRows& p : built_for_peers) {
    const SparseRows& s = p.rows.phi;
    const LengthResolvedGrf& t = p.rows.by_length;
    const std::int64_t rows_sent = s.n_local(), entries = static_cast<std::int64_t>(s.col.size());
    transfers.send(s.indptr.data() + 1, rows_sent, p.owner);
    transfers.send(s.col.data(), entries, p.owner);
    transfers.send(s.value.data(), entries, p.owner);
    if (t.indptr.empty()) continue;
    const auto m_entries = static_cast<std::int64_t>(t.col.size());
    transfers.send(t.indptr.data() + 1, rows_sent, p.owner);
    transfers.send(t.col.data(), m_entries, p.owner);
    transfers.send(t.length.data(), m_entries, p.owner);
    transfers.send(t.value.data(), m_entries, p.owner);
  }
  transfers.wait();
  // Row ends arrived relative to their range: shift them to where the range's entries start.
  for (const Arrival& a : ranges)
    for (std::int64_t i = 1; i <= a.header.rows; ++i) {
      phi.indptr[static_cast<size_t>(a.header.first_local + i)] += a.phi_at;
      if (keep) m.indptr[static_cast<size_t>(a.header.first_local + i)] += a.m_at;
    }
  return own;
}

}  // namespace graphrf
