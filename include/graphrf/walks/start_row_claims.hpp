#pragma once
// Start rows shared out inside a host, for balance. Each rank owns a contiguous range of start rows (its nodes)
// and takes them from the front, a batch at a time; a rank of the same host that has run out of its own takes the
// back half of what a peer has left, walks it and builds its rows for that peer. Ranks of one machine seldom run
// at the same speed for a whole phase (one core is slower in spells on a shared machine, or serves interrupts), so
// with fixed ranges the fast rank waits for the slow one at the end of every walk phase; with these claims they
// finish within a batch of each other. Which rank walks a row changes nothing in it: a row is summed in a fixed
// order from its walks' visits (grf_matrix.hpp), and every random draw is keyed by the start node's id. Masked
// attention shares out its key pass's columns and its query pass's rows the same way (masked_attention.cpp).
//
// Each rank's range is one 64-bit word in a shared window, (next | end << 32): the owner moves next up and thieves
// move end down, both by compare-and-swap, so every row is claimed exactly once. The words are plain process-
// shared atomics (lock-free 64-bit atomics are address-free), each on a cache line of its own.
#include <atomic>
#include <cstdint>
#include <optional>

#include "graphrf/mpi/communicator.hpp"
#include "graphrf/mpi/shared_array.hpp"

namespace graphrf {

struct RowRange {
  std::int64_t begin = 0, end = 0;
  std::int64_t size() const { return end - begin; }
  bool empty() const { return end <= begin; }
};

// A claim word: rows next .. end - 1 of their owner are unclaimed.
inline std::uint64_t claim_word(std::int64_t next, std::int64_t end) {
  return static_cast<std::uint64_t>(next) | (static_cast<std::uint64_t>(end) << 32);
}
inline RowRange unclaimed(std::uint64_t word) {
  return {static_cast<std::int64_t>(word & 0xFFFFFFFFu), static_cast<std::int64_t>(word >> 32)};
}

// The owner's claim: up to max_rows from the front of what is left (empty when nothing is).
RowRange claim_front(std::atomic_ref<std::uint64_t> word, std::int64_t max_rows);
// A peer's claim: the back half of what is left (rounded down) but at most max_rows, or nothing when fewer than
// 2 * min_rows are left (the owner finishes those sooner than a hand-over pays).
RowRange claim_back(std::atomic_ref<std::uint64_t> word, std::int64_t min_rows, std::int64_t max_rows);

class StartRowClaims {
 public:
  // Collective over host: this rank owns rows 0 .. own_rows - 1 (fewer than 2^32).
  StartRowClaims(const Communicator& host, std::int64_t own_rows);

  // Up to max_rows of this rank's own rows, in ascending order over calls.
  RowRange claim_own(std::int64_t max_rows) { return claim_front(word(rank_), max_rows); }
  // Rows taken from the peer (host rank) with the most left, when one has at least 2 * min_rows left: at most
  // max_rows of them.
  struct PeerRows {
    int peer;
    RowRange rows;
  };
  std::optional<PeerRows> claim_from_peer(std::int64_t min_rows, std::int64_t max_rows);
  // The end of this rank's rows it claimed itself: rows from there on were claimed by peers. Final once no rank
  // claims any more (every walker of the run has ended).
  std::int64_t own_end() { return unclaimed(word(rank_).load()).end; }

 private:
  struct alignas(64) Word {
    std::uint64_t value;
  };
  std::atomic_ref<std::uint64_t> word(int host_rank) { return std::atomic_ref<std::uint64_t>(words_[host_rank].value); }

  SharedArray<Word> words_;
  int rank_ = 0, size_ = 1;
};

}  // namespace graphrf
