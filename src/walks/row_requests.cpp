#include "graphrf/walks/row_requests.hpp"

#include <atomic>
#include <string>

#include "graphrf/core/error.hpp"

namespace graphrf {

RowRequests::RowRequests(int rank, int ranks, std::int64_t own_rows)
    : word_(claim_word(0, own_rows)), rank_(rank), ranks_(ranks), next_owner_((rank + 1) % ranks) {
  if (own_rows < 0 || own_rows >= (std::int64_t{1} << 32))
    throw Error("RowRequests: " + std::to_string(own_rows) + " rows on one rank (at most 2^32 - 1)");
}

// One process changes the word (the owner answers requests between its own claims): the claims of
// start_row_claims.hpp on a word of this rank's memory.
RowRange RowRequests::claim_own(std::int64_t max_rows) { return claim_front(std::atomic_ref<std::uint64_t>(word_), max_rows); }

RowRange RowRequests::give(std::int64_t min_rows, std::int64_t max_rows) {
  return claim_back(std::atomic_ref<std::uint64_t>(word_), min_rows, max_rows);
}

std::optional<int> RowRequests::ask() {
  if (outstanding_ || granted_ || done_asking()) return std::nullopt;
  outstanding_ = true;
  return next_owner_;
}

void RowRequests::answered(int owner, RowRange rows) {
  if (!outstanding_ || owner != next_owner_) throw Error("RowRequests: an answer from rank " + std::to_string(owner) + " that was not asked");
  outstanding_ = false;
  if (rows.empty()) {
    ++refusals_in_a_row_;
    next_owner_ = (next_owner_ + 1) % ranks_;
    if (next_owner_ == rank_) next_owner_ = (next_owner_ + 1) % ranks_;
    return;
  }
  refusals_in_a_row_ = 0;
  granted_ = StartRowClaims::PeerRows{owner, rows};
}

std::optional<StartRowClaims::PeerRows> RowRequests::take_granted() {
  std::optional<StartRowClaims::PeerRows> out;
  out.swap(granted_);
  return out;
}

}  // namespace graphrf
