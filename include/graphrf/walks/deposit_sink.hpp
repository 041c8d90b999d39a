#pragma once
// Where the walk engine delivers the visits of walks started at this rank's nodes, as they happen or
// arrive, so that a start node's GRF row can be built as soon as its walks are all accounted for
// (streaming assembly: memory bounded by the output, not by the number of visits).
//
// The home rank of a start node counts completions: a walker that ends after t hops made exactly t
// visits (steps 1..t; step 0 is the start node itself and is not delivered), so once all n walkers of a
// node have reported their hop counts and that many visits have arrived, the node's row is complete,
// whatever order the messages took.
#include <cstdint>
#include <span>

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

class DepositSink {
 public:
  virtual ~DepositSink() = default;
  // Visits of walkers from local start row `row` (every deposit has .row == row), in any order.
  virtual void add_visits(std::uint32_t row, std::span<const Deposit> visits) = 0;
  // A walker from local start row `row` ended after `hops` hops; some of its visits may still be under way.
  virtual void walker_finished(std::uint32_t row, std::int32_t hops) = 0;
  // Whether the engine may start the walkers of local row `row` now. Rows start in ascending order; the
  // sink bounds how many are open (started, not yet complete) at once, and with them its memory.
  virtual bool can_start_row(std::int64_t row) const = 0;
};

}  // namespace graphrf
