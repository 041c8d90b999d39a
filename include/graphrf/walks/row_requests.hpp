#pragma once
// Start rows shared out between hosts, by request, when every host holds the whole graph (a replicated walk
// table: walk_arcs.hpp). Then a walker started anywhere walks on the rank that started it, so a rank that has run
// out of its own start rows can walk another rank's and build their rows for it, as ranks of one host do through
// shared memory (start_row_claims.hpp); between hosts the claim is a message. The thief asks one rank at a time,
// in turn from the next rank on; the owner answers with the back half of its unstarted rows (or nothing when
// fewer than 2 * min_rows are left) and stops short of them itself. A thief keeps asking the rank that gave last;
// once every other rank has said no in a row it stops asking: what ranks have left only shrinks.
//
// This class holds both sides' state; the walk engine carries the messages. Which rank walks a row changes nothing
// in it (every random draw is keyed by the start node's id, and rows are summed in a fixed order).
#include <cstdint>
#include <optional>

#include "graphrf/walks/start_row_claims.hpp"

namespace graphrf {

class RowRequests {
 public:
  // This rank (of `ranks`) owns rows 0 .. own_rows - 1 (fewer than 2^32).
  RowRequests(int rank, int ranks, std::int64_t own_rows);

  // Owner side. Up to max_rows of this rank's own rows, in ascending order over calls.
  RowRange claim_own(std::int64_t max_rows);
  // A thief's request: the back half of what is left, at most max_rows, or nothing when fewer than 2 * min_rows
  // are left.
  RowRange give(std::int64_t min_rows, std::int64_t max_rows);
  // The end of the rows this rank kept: rows from there on were given away.
  std::int64_t own_end() const { return unclaimed(word_).end; }

  // Thief side. The rank to ask now, when no request is outstanding and not every rank has said no in a row; the
  // request counts as outstanding from here until answered.
  std::optional<int> ask();
  // The answer of `owner`: rows of its own to walk here (empty: it said no).
  void answered(int owner, RowRange rows);
  // Rows granted and not yet taken.
  std::optional<StartRowClaims::PeerRows> take_granted();
  bool asking() const { return outstanding_; }
  bool done_asking() const { return refusals_in_a_row_ >= ranks_ - 1; }

 private:
  std::uint64_t word_;  // claim_word(next, end) of this rank's own rows
  int rank_, ranks_;
  int next_owner_;      // whom to ask next
  int refusals_in_a_row_ = 0;
  bool outstanding_ = false;
  std::optional<StartRowClaims::PeerRows> granted_;
};

}  // namespace graphrf
