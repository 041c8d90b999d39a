#pragma once
// Distributed look-up: each rank asks the owners of some keys for a value and gets the answers back in
// the order it asked. Two alltoallv rounds; requests are grouped by owner with a counting sort.
#include <cstdint>
#include <span>
#include <vector>

#include "graphrf/mpi/communicator.hpp"

namespace graphrf {

template <class Value, class Key, class OwnerOf, class Answer>
std::vector<Value> request_reply(const Communicator& comm, std::span<const Key> keys, OwnerOf owner_of, Answer answer) {
  const auto p = static_cast<size_t>(comm.size());
  std::vector<int> owner(keys.size());
  Counts send_counts(p, 0);
  for (size_t i = 0; i < keys.size(); ++i) {
    owner[i] = owner_of(keys[i]);
    ++send_counts[static_cast<size_t>(owner[i])];
  }
  std::vector<std::int64_t> pos(p + 1, 0);
  for (size_t r = 0; r < p; ++r) pos[r + 1] = pos[r] + send_counts[r];
  std::vector<Key> packed(keys.size());
  std::vector<std::int64_t> slot(keys.size());
  {
    auto fill = pos;
    for (size_t i = 0; i < keys.size(); ++i) {
      slot[i] = fill[static_cast<size_t>(owner[i])]++;
      packed[static_cast<size_t>(slot[i])] = keys[i];
    }
  }
  Counts recv_counts;
  const std::vector<Key> asked = comm.alltoallv(packed, send_counts, &recv_counts);
  std::vector<Value> answers(asked.size());
  for (size_t i = 0; i < asked.size(); ++i) answers[i] = answer(asked[i]);
  const std::vector<Value> replies = comm.alltoallv(answers, recv_counts);
  std::vector<Value> out(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) out[i] = replies[static_cast<size_t>(slot[i])];
  return out;
}

}  // namespace graphrf
