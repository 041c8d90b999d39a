#pragma once
// Batched point-to-point messages for asynchronous algorithms whose ranks work without a per-step barrier (the
// walk engine's walkers and deposits). Records for another rank gather in per-destination batches of one
// channel (one record type, one tag); a batch leaves with a non-blocking send once it is full, or when the
// caller flushes; the buffers of completed sends are freed as the caller polls (reclaim). Arrivals are found
// by probing and received straight into the caller's storage. Every message travels on a private duplicate
// of the caller's communicator, so it never meets anyone else's.
//
// The end of such an algorithm is found by counting (CountedTermination); what a channel still carries then
// is drained: every rank learns, with one all-to-all of message counts, how many messages were sent to it on
// that channel, and receives exactly those.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <type_traits>
#include <vector>

#include "graphrf/mpi/communicator.hpp"
#include "graphrf/mpi/request.hpp"

namespace graphrf {

// A message found by a probe and not yet received.
struct Arrival {
  int source = 0;
  int tag = 0;
  std::int64_t bytes = 0;
  template <class T>
  size_t count() const { return static_cast<size_t>(bytes) / sizeof(T); }
};

class BatchedExchange {
 public:
  // Collective (duplicates `comm`).
  explicit BatchedExchange(const Communicator& comm);

  const Communicator& comm() const { return comm_; }

  // The next message waiting for this rank (any source, any channel), if one has arrived.
  std::optional<Arrival> probe();
  // Blocks until a message on `tag` arrives.
  Arrival wait_for(int tag);

  // Frees the buffers of completed sends; with `wait`, completes every send first.
  void reclaim(bool wait);

  // Sent by this rank on every channel.
  std::int64_t messages_sent() const { return messages_sent_; }
  std::int64_t bytes_sent() const { return bytes_sent_; }

  // After the last record of `channel` was appended everywhere (collective): sends its batches, receives
  // exactly the messages the other ranks sent here on it, handing each to deliver(arrival), which receives
  // it through the channel, and completes every send of the exchange.
  template <class Channel, class Deliver>
  void drain(Channel& channel, Deliver&& deliver) {
    channel.flush();
    const std::int64_t expected = messages_sent_here(channel.messages_to());
    while (channel.messages_received() < expected) deliver(wait_for(channel.tag()));
    reclaim(true);
  }

 private:
  template <class T>
  friend class BatchChannel;
  // One non-blocking send and the batch it reads, kept until the send completes.
  struct PendingSend {
    std::vector<std::byte> batch;
    Request request;
  };
  void send(int dest, int tag, std::vector<std::byte>&& batch);
  // Collective: how many messages all ranks sent to this one, from each rank's count per destination.
  std::int64_t messages_sent_here(const Counts& sent_to) const;
  void receive(const Arrival& arrival, void* into);

  Communicator comm_;
  std::vector<PendingSend> sends_;
  std::int64_t messages_sent_ = 0, bytes_sent_ = 0;
};

// Per-destination batches of records of type T, sent on one tag of an exchange, and the count of messages
// this rank received on it.
template <class T>
class BatchChannel {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  // `batch`: records per message (a batch leaves once an append makes it reach this size).
  BatchChannel(BatchedExchange& exchange, int tag, std::int64_t batch)
      : exchange_(exchange), tag_(tag), batch_bytes_(batch * static_cast<std::int64_t>(sizeof(T))),
        out_(static_cast<size_t>(exchange.comm().size())), messages_to_(out_.size(), 0) {}

  int tag() const { return tag_; }
  bool carries(const Arrival& arrival) const { return arrival.tag == tag_; }

  // Appends records for `dest` as one run (never split across messages).
  void append(int dest, std::span<const T> records) {
    auto& out = out_[static_cast<size_t>(dest)];
    add(out, records);
    if (static_cast<std::int64_t>(out.size()) >= batch_bytes_) send(dest);
  }
  void append(int dest, const T& record) { append(dest, std::span<const T>(&record, 1)); }
  // A record followed by a run (e.g. a header and what it describes), as one run.
  void append(int dest, const T& head, std::span<const T> rest) {
    auto& out = out_[static_cast<size_t>(dest)];
    add(out, std::span<const T>(&head, 1));
    add(out, rest);
    if (static_cast<std::int64_t>(out.size()) >= batch_bytes_) send(dest);
  }

  // dest's batch leaves now (if it holds anything).
  void send(int dest) {
    auto& out = out_[static_cast<size_t>(dest)];
    if (out.empty()) return;
    buffered_bytes_ -= static_cast<std::int64_t>(out.size());
    ++messages_to_[static_cast<size_t>(dest)];
    exchange_.send(dest, tag_, std::move(out));
    out = {};
  }
  void flush() {
    for (int d = 0; d < static_cast<int>(out_.size()); ++d) send(d);
  }

  // Records waiting in batches.
  std::int64_t buffered() const { return buffered_bytes_ / static_cast<std::int64_t>(sizeof(T)); }

  // Receives a probed message of this channel into `into` (room for arrival.count<T>() records).
  void receive(const Arrival& arrival, T* into) {
    exchange_.receive(arrival, into);
    ++messages_received_;
  }

  const Counts& messages_to() const { return messages_to_; }  // sent per destination
  std::int64_t messages_received() const { return messages_received_; }

 private:
  void add(std::vector<std::byte>& out, std::span<const T> records) {
    const auto* bytes = reinterpret_cast<const std::byte*>(records.data());
    out.insert(out.end(), bytes, bytes + records.size_bytes());
    buffered_bytes_ += static_cast<std::int64_t>(records.size_bytes());
  }

  BatchedExchange& exchange_;
  int tag_;
  std::int64_t batch_bytes_;
  std::vector<std::vector<std::byte>> out_;
  std::int64_t buffered_bytes_ = 0;
  Counts messages_to_;
  std::int64_t messages_received_ = 0;
};

}  // namespace graphrf
