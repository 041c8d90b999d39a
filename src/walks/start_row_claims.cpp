#include "graphrf/walks/start_row_claims.hpp"

#include <algorithm>
#include <string>

#include "graphrf/core/error.hpp"

namespace graphrf {

static_assert(std::atomic_ref<std::uint64_t>::is_always_lock_free, "claim words are shared between processes");

namespace {
// The fewest rows left that a peer may take half of.
std::int64_t fewest_to_share(std::int64_t min_rows) { return 2 * std::max<std::int64_t>(min_rows, 1); }
}  // namespace

RowRange claim_front(std::atomic_ref<std::uint64_t> word, std::int64_t max_rows) {
  std::uint64_t seen = word.load(std::memory_order_relaxed);
  for (;;) {
    const RowRange left = unclaimed(seen);
    if (left.empty()) return {};
    const std::int64_t take = std::min(max_rows, left.size());
    if (word.compare_exchange_weak(seen, claim_word(left.begin + take, left.end), std::memory_order_relaxed))
      return {left.begin, left.begin + take};
  }
}

RowRange claim_back(std::atomic_ref<std::uint64_t> word, std::int64_t min_rows, std::int64_t max_rows) {
  std::uint64_t seen = word.load(std::memory_order_relaxed);
  for (;;) {
    const RowRange left = unclaimed(seen);
    if (left.size() < fewest_to_share(min_rows) || max_rows <= 0) return {};
    const std::int64_t take = std::min(left.size() / 2, max_rows);
    if (word.compare_exchange_weak(seen, claim_word(left.begin, left.end - take), std::memory_order_relaxed))
      return {left.end - take, left.end};
  }
}

StartRowClaims::StartRowClaims(const Communicator& host, std::int64_t own_rows)
    : words_(host, 1), rank_(host.rank()), size_(host.size()) {
  if (own_rows < 0 || own_rows >= (std::int64_t{1} << 32))
    throw Error("StartRowClaims: " + std::to_string(own_rows) + " rows on one rank (at most 2^32 - 1)");
  word(rank_).store(claim_word(0, own_rows));
  words_.synchronize();
}

std::optional<StartRowClaims::PeerRows> StartRowClaims::claim_from_peer(std::int64_t min_rows, std::int64_t max_rows) {
  // The peer with the most left first; another may have been emptied meanwhile, so try them all in that order
  // once (a host has few ranks next to the rows a claim moves).
  for (int attempt = 0; attempt < size_; ++attempt) {
    int fullest = -1;
    std::int64_t most = fewest_to_share(min_rows) - 1;
    for (int r = 0; r < size_; ++r) {
      if (r == rank_) continue;
      const std::int64_t left = unclaimed(word(r).load(std::memory_order_relaxed)).size();
      if (left > most) {
        most = left;
        fullest = r;
      }
    }
    if (fullest < 0) return std::nullopt;
    const RowRange rows = claim_back(word(fullest), min_rows, max_rows);
    if (!rows.empty()) return PeerRows{fullest, rows};
  }
  return std::nullopt;
}

}  // namespace graphrf
