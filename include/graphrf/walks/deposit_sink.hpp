#pragma once
// Where the walk engine delivers the visits of walks started at this rank's nodes, as they happen or
// arrive, so that a start node's GRF row can be built as soon as its walks are all accounted for
// (streaming assembly: memory bounded by the output, not by the number of visits).
//
// The home rank of a start node counts completions: a walker that ends after t hops made exactly t
// visits (steps 1..t; step 0 is the start node itself and is not delivered), so once all n walkers of a
// node have reported their hop counts and that many visits have arrived, the node's row is complete,
// whatever order the messages took.
#include <bit>
#include <cstdint>
#include <span>
#include <vector>

#include "graphrf/core/counter_rng.hpp"

namespace graphrf {

// One visit: a walker from start node `row` was at `col` after `step` hops with running load `load`
// (product of W_{v_t v_t+1} / p(step) over its hops; f and 1/n are applied later). 24 bytes: deposits are
// the bulk of the walk phase's memory traffic.
struct Deposit {
  std::int64_t col;    // global index of the visited node
  double load;
  std::uint32_t row;   // local index of the start node at its owner
  std::int32_t step;
};

// One visit in a row's buffer, as one 128-bit integer: (column << 20 | step) in the high half, the load's bits
// in the low half, so that sorting the integers gives the fixed summation order of assembly (grf_matrix.hpp)
// and compares in two instructions. Columns stay below 2^43 and steps below 2^20 (max_length <= 100000).
using RowVisit = Uint128;
inline RowVisit row_visit(std::int64_t col, std::int32_t step, double load) {
  const auto key = (static_cast<std::uint64_t>(col) << 20) | static_cast<std::uint64_t>(step);
  return (static_cast<RowVisit>(key) << 64) | std::bit_cast<std::uint64_t>(load);
}
inline RowVisit row_visit(const Deposit& d) { return row_visit(d.col, d.step, d.load); }
// A visit's high half, (column << 20 | step): visits of one (column, step) share it.
inline std::uint64_t visit_key(RowVisit v) { return static_cast<std::uint64_t>(v >> 64); }
inline std::int64_t key_col(std::uint64_t key) { return static_cast<std::int64_t>(key >> 20); }
inline std::int32_t key_step(std::uint64_t key) { return static_cast<std::int32_t>(key & 0xFFFFF); }

class DepositSink {
 public:
  virtual ~DepositSink() = default;
  // Visits of walkers from local start row `row` (every deposit has .row == row), in any order.
  virtual void add_visits(std::uint32_t row, std::span<const Deposit> visits) = 0;
  // Where the engine may append the visits of walkers from local row `row` while they are on this rank,
  // instead of batching them for add_visits (nullptr: it may not). Valid until the row's walkers have all
  // ended; the engine reports how many it appended with visits_appended before it reports those walkers ended.
  virtual std::vector<RowVisit>* visit_buffer(std::uint32_t /*row*/) { return nullptr; }
  virtual void visits_appended(std::uint32_t /*row*/, std::int64_t /*count*/) {}
  // `walkers` walkers from local start row `row` ended after `hops` hops in all; some of their visits may still
  // be under way. (The engine tells of a row's walkers that ended at home once, when its lane is done with the
  // row, and of each walker that ended elsewhere by its completion record.)
  virtual void walkers_finished(std::uint32_t row, std::int64_t walkers, std::int64_t hops) = 0;
  void walker_finished(std::uint32_t row, std::int32_t hops) { walkers_finished(row, 1, hops); }
  // Work the sink put off to keep its calls short (building complete rows a batch at a time), done a piece at
  // a time between the engine's rounds; true if there was some.
  virtual bool make_progress() { return false; }
  // Whether the engine may start the walkers of local row `row` now. Rows start in ascending order; the
  // sink bounds how many are open (started, not yet complete) at once, and with them its memory.
  virtual bool can_start_row(std::int64_t row) const = 0;
  // Whether this rank may walk rows of a peer on its host when it runs out of its own (start_row_claims.hpp); the
  // caller then hands the rows built for peers back to their owners after the walks.
  virtual bool builds_peer_rows() const { return false; }
  // Where the visits of peer rows go: the sink for rank `peer`'s (same host) local rows first_local .. first_local
  // + rows - 1 (global first_global ..), numbered from 0 in its calls; it lives as long as this sink.
  virtual DepositSink* peer_rows(int /*peer*/, std::int64_t /*first_global*/, std::int64_t /*first_local*/,
                                 std::int64_t /*rows*/) {
    return nullptr;
  }
};

}  // namespace graphrf
