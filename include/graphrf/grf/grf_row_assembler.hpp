#pragma once
// Streaming assembly of GRF rows while the walks run. The walk engine hands this sink the visits of walks
// started at this rank's nodes and each walker's hop count when it ends; a row is complete once all n
// walkers have ended and as many visits as their hops have arrived. Complete rows are built in ascending
// row order (length-resolved row M_t[i, .], then Phi[i, .] = sum_t f_t M_t[i, .], or Phi alone) and their visits
// released, so memory is the output plus at most `max_open_rows` rows of visits: the engine starts a row
// only while it lies within that window after the oldest unfinished row. Each row is summed in the fixed
// order of append_length_resolved_row, so the result does not depend on arrival order, rank count or
// partition.
#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <vector>

#include "graphrf/core/write_ahead.hpp"
#include "graphrf/grf/grf_matrix.hpp"
#include "graphrf/walks/deposit_sink.hpp"

namespace graphrf {

struct AssembledGrf {
  LengthResolvedGrf by_length;
  SparseRows phi;
};

// Rows a rank built for a peer on its host (start_row_claims.hpp): the peer's local rows first_local ..
// first_local + rows.phi.n_local() - 1.
struct PeerRows {
  int owner;  // rank
  std::int64_t first_local;
  AssembledGrf rows;
};

class GrfRowAssembler final : public DepositSink {
 public:
  // Rows are global indices first_row .. first_row + n_local - 1. `expected_entries` sizes the output
  // arrays' reservation (address space only: pages are touched as rows are written). `starts` marks the
  // rows where walkers start (empty: every row); the others start none (start_every) and hold M_0 = I only.
  // With LengthResolvedRows::drop only Phi is built (by_length stays empty), bitwise the same rows.
  GrfRowAssembler(std::int64_t first_row, std::int64_t n_local, std::int64_t walkers, std::vector<double> f,
                  std::int64_t max_open_rows, std::int64_t expected_entries, std::vector<bool> starts = {},
                  LengthResolvedRows rows = LengthResolvedRows::keep);

  void add_visits(std::uint32_t row, std::span<const Deposit> visits) override;
  std::vector<RowVisit>* visit_buffer(std::uint32_t row) override;
  void visits_appended(std::uint32_t row, std::int64_t count) override;
  bool make_progress() override;
  void walkers_finished(std::uint32_t row, std::int64_t walkers, std::int64_t hops) override;
  bool can_start_row(std::int64_t row) const override {
    return row < next_row_ + window_;
  }
  // Lets the walks give this rank peers' rows to build when it runs out of its own; the caller then hands them
  // to their owners (return_peer_rows in peer_rows.hpp).
  void build_rows_for_peers() { builds_peer_rows_ = true; }
  bool builds_peer_rows() const override { return builds_peer_rows_; }
  DepositSink* peer_rows(int peer, std::int64_t first_global, std::int64_t first_local, std::int64_t rows) override;

  std::int64_t rows_done() const { return next_row_; }
  // Most visits held at once in open rows (the in-flight part of the memory).
  std::int64_t peak_pending_visits() const { return peak_pending_; }
  // The assembled rows; throws Error naming the first incomplete row if the walks did not account for all.
  AssembledGrf finish() { return finish(n_local_); }
  // The same for this rank's first own_rows rows, when peers walked the others (WalkResult::own_rows_end).
  AssembledGrf finish(std::int64_t own_rows);
  // The rows built for peers, each range checked complete as finish() checks.
  std::vector<PeerRows> finish_peer_rows();

 private:
  struct OpenRow {
    std::vector<RowVisit> visits;
    std::int64_t walkers_done = 0, hops_done = 0;  // hop counts reported by ended walkers
  };
  // The open row's record (rows below next_row_ are never asked for), growing the ring for a row far ahead.
  OpenRow& slot(std::uint32_t row) {
    const auto ahead = static_cast<size_t>(row - next_row_);
    if (ahead >= open_.size()) [[unlikely]] grow_ring(ahead);
    return *open_[row & (open_.size() - 1)];
  }
  void grow_ring(size_t ahead);
  void build_complete_rows(std::int64_t max_rows);
  void fault_in_output_ahead();

  std::int64_t first_row_, n_local_, walkers_;
  std::vector<double> f_;
  std::vector<bool> starts_;
  bool keep_by_length_;
  std::int64_t expected_entries_;
  bool builds_peer_rows_ = false;
  struct PeerAssembler {
    int owner;
    std::int64_t first_local;
    std::unique_ptr<GrfRowAssembler> rows;
  };
  std::vector<PeerAssembler> peers_;
  std::int64_t window_ = 1;     // rows open at once at most
  // Ring of a power-of-two size, doubled up to >= window_ when rows run ahead: row r lives in slot r % size
  // while open. The slots point into storage_, so that an open row never moves.
  std::vector<OpenRow*> open_;
  std::deque<OpenRow> storage_;
  // Buffers of built rows, reused by rows that open later: as many buffers exist as rows hold visits at
  // once, however wide the window.
  std::vector<std::vector<RowVisit>> spare_;
  size_t first_visits_capacity_ = 16;  // of a fresh row buffer
  std::int64_t next_row_ = 0;   // the oldest row not yet built
  std::int64_t pending_ = 0, peak_pending_ = 0;
  AssembledGrf out_;
  // The output arrays' pages are faulted in a batch ahead of the rows written (see WriteAhead).
  WriteAhead phi_indptr_ahead_, phi_col_ahead_, phi_value_ahead_, m_indptr_ahead_, m_col_ahead_, m_length_ahead_,
      m_value_ahead_;
};

}  // namespace graphrf
