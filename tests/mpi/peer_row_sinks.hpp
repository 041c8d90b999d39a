#pragma once
// Deposit sinks for the tests of walks whose start rows are shared out (host_walks_test, replicated_walks_test).
#include <atomic>
#include <cstdint>
#include <span>
#include <vector>

#include "graphrf/core/timer.hpp"
#include "graphrf/grf/grf_row_assembler.hpp"
#include "graphrf/mpi/shared_array.hpp"
#include "graphrf/walks/deposit_sink.hpp"

namespace graphrf::testing {

// A deposit sink that hands everything to a GrfRowAssembler; the tests' sinks change one behaviour each.
class AssemblerSink : public DepositSink {
 public:
  explicit AssemblerSink(GrfRowAssembler& rows) : rows_(rows) {}
  void add_visits(std::uint32_t row, std::span<const Deposit> visits) override { rows_.add_visits(row, visits); }
  std::vector<RowVisit>* visit_buffer(std::uint32_t row) override { return rows_.visit_buffer(row); }
  void visits_appended(std::uint32_t row, std::int64_t count) override { rows_.visits_appended(row, count); }
  void walkers_finished(std::uint32_t row, std::int64_t walkers, std::int64_t hops) override {
    rows_.walkers_finished(row, walkers, hops);
  }
  bool make_progress() override { return rows_.make_progress(); }
  bool can_start_row(std::int64_t row) const override { return rows_.can_start_row(row); }

 protected:
  GrfRowAssembler& rows_;
};

// Rank 0's rows as a sink that opens none past its first 16 until a peer has taken some of them (a flag in the
// machine's shared memory, set by the peer's peer_rows), so that every rank count above one shares rows for
// certain. After 60 s it gives up waiting and the test fails on its count of shared rows instead of hanging.
// `machine`: ranks that share memory, rank 0 among them.
class HoldRankZeroUntilShared final : public AssemblerSink {
 public:
  HoldRankZeroUntilShared(GrfRowAssembler& rows, const Communicator& machine)
      : AssemblerSink(rows), flag_(machine, machine.rank() == 0 ? 1 : 0), rank_(machine.rank()) {
    if (rank_ == 0) flag().store(0);
    flag_.synchronize();
  }
  bool can_start_row(std::int64_t row) const override {
    return rows_.can_start_row(row) && (rank_ != 0 || row < 16 || flag().load() != 0 || timer_.seconds() > 60);
  }
  bool builds_peer_rows() const override { return true; }
  DepositSink* peer_rows(int peer, std::int64_t first_global, std::int64_t first_local, std::int64_t rows) override {
    if (peer == 0) flag().store(1);
    return rows_.peer_rows(peer, first_global, first_local, rows);
  }

 private:
  std::atomic_ref<std::uint64_t> flag() const { return std::atomic_ref<std::uint64_t>(flag_[0]); }
  SharedArray<std::uint64_t> flag_;
  int rank_;
  Timer timer_;
};

}  // namespace graphrf::testing
