#include "graphrf/grf/peer_rows.hpp"

#include <algorithm>
#include <bit>
#include <string>

#include "graphrf/core/error.hpp"

namespace graphrf {

namespace {

// A range of rows as 64-bit words: first_local, rows, Phi's entries, M_t's entries (-1: not kept), then Phi's
// row lengths, columns and values, then M_t's row lengths, columns, hop counts and values.
void pack(const PeerRows& p, std::vector<std::int64_t>& out) {
  const SparseRows& phi = p.rows.phi;
  const LengthResolvedGrf& m = p.rows.by_length;
  const bool keep = !m.indptr.empty();
  out.push_back(p.first_local);
  out.push_back(phi.n_local());
  out.push_back(static_cast<std::int64_t>(phi.col.size()));
  out.push_back(keep ? static_cast<std::int64_t>(m.col.size()) : -1);
  for (std::int64_t i = 0; i < phi.n_local(); ++i) out.push_back(phi.indptr[static_cast<size_t>(i) + 1] - phi.indptr[static_cast<size_t>(i)]);
  out.insert(out.end(), phi.col.begin(), phi.col.end());
  for (double v : phi.value) out.push_back(std::bit_cast<std::int64_t>(v));
  if (!keep) return;
  for (std::int64_t i = 0; i < m.n_local(); ++i) out.push_back(m.indptr[static_cast<size_t>(i) + 1] - m.indptr[static_cast<size_t>(i)]);
  out.insert(out.end(), m.col.begin(), m.col.end());
  out.insert(out.end(), m.length.begin(), m.length.end());
  for (double v : m.value) out.push_back(std::bit_cast<std::int64_t>(v));
}

// Words of the packed range at `at`.
size_t packed_size(const std::int64_t* at) {
  const std::int64_t rows = at[1], phi_entries = at[2], m_entries = at[3];
  return static_cast<size_t>(4 + rows + 2 * phi_entries + (m_entries >= 0 ? rows + 3 * m_entries : 0));
}

// Appends the packed range at `at` to `out`.
void unpack_append(const std::int64_t* at, AssembledGrf& out) {
  const std::int64_t rows = at[1], phi_entries = at[2], m_entries = at[3];
  const std::int64_t* next = at + 4;
  const auto append_indptr = [&](std::vector<std::int64_t>& indptr) {
    for (std::int64_t i = 0; i < rows; ++i) indptr.push_back(indptr.back() + next[i]);
    next += rows;
  };
  SparseRows& phi = out.phi;
  append_indptr(phi.indptr);
  phi.col.insert(phi.col.end(), next, next + phi_entries);
  next += phi_entries;
  for (std::int64_t k = 0; k < phi_entries; ++k) phi.value.push_back(std::bit_cast<double>(next[k]));
  next += phi_entries;
  if (m_entries >= 0) {
    LengthResolvedGrf& m = out.by_length;
    append_indptr(m.indptr);
    m.col.insert(m.col.end(), next, next + m_entries);
    next += m_entries;
    for (std::int64_t k = 0; k < m_entries; ++k) m.length.push_back(static_cast<std::int32_t>(next[k]));
    next += m_entries;
    for (std::int64_t k = 0; k < m_entries; ++k) m.value.push_back(std::bit_cast<double>(next[k]));
  }
}

}  // namespace

AssembledGrf return_peer_rows(const Communicator& comm, AssembledGrf own, std::int64_t own_rows_end, std::int64_t n_local,
                              std::vector<PeerRows> built_for_peers) {
  std::sort(built_for_peers.begin(), built_for_peers.end(),
            [](const PeerRows& a, const PeerRows& b) { return a.owner < b.owner; });
  std::vector<std::int64_t> send;
  Counts counts(static_cast<size_t>(comm.size()), 0);
  for (PeerRows& p : built_for_peers) {
    const size_t before = send.size();
    pack(p, send);
    counts[static_cast<size_t>(p.owner)] += static_cast<std::int64_t>(send.size() - before);
    p.rows = {};  // its memory goes as soon as it is packed
  }
  const std::vector<std::int64_t> received = comm.alltoallv(send, counts);
  send = {};
  // Ranges in ascending row order, each starting where the rows so far end.
  std::vector<size_t> starts;
  for (size_t at = 0; at < received.size(); at += packed_size(received.data() + at)) starts.push_back(at);
  std::sort(starts.begin(), starts.end(), [&](size_t a, size_t b) { return received[a] < received[b]; });
  std::int64_t rows = own_rows_end;
  for (size_t at : starts) {
    if (received[at] != rows)
      throw Error("return_peer_rows: rows from " + std::to_string(received[at]) + " arrived where row " +
                  std::to_string(rows) + " was due");
    unpack_append(received.data() + at, own);
    rows += received[at + 1];
  }
  if (rows != n_local)
    throw Error("return_peer_rows: rows up to " + std::to_string(rows) + " arrived of " + std::to_string(n_local));
  return own;
}

}  // namespace graphrf
