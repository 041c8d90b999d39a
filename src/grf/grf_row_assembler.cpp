#include "graphrf/grf/grf_row_assembler.hpp"

#include <algorithm>
#include <bit>
#include <string>

#include "graphrf/core/error.hpp"

namespace graphrf {

namespace {
// A built row's buffer is kept for reuse unless it grew past this many visits (a rare very long row).
constexpr size_t kSlotKeepCapacity = size_t{1} << 14;
// The ring of open rows starts this small and doubles when a row further ahead of the oldest opens (up to the
// window): on one rank rows complete close to their order, and a ring sized for the whole window (2^18 rows for
// one walker per node, 10 MiB) would cost more first touches than the walks' own memory.
constexpr size_t kFirstRing = 1024;
// Rows built per call while the walks run: when the oldest open row completes, the rows behind it (up to the
// whole window) are complete too, and building them at once kept the rank from serving walkers for tens of
// milliseconds while others waited for them; the engine asks for the rest between its rounds.
constexpr std::int64_t kRowsPerBuild = 1024;
}  // namespace

GrfRowAssembler::GrfRowAssembler(std::int64_t first_row, std::int64_t n_local, std::int64_t walkers,
                                 std::vector<double> f, std::int64_t max_open_rows, std::int64_t expected_entries,
                                 std::vector<bool> starts, LengthResolvedRows rows)
    : first_row_(first_row),
      n_local_(n_local),
      walkers_(walkers),
      f_(std::move(f)),
      starts_(std::move(starts)),
      keep_by_length_(rows == LengthResolvedRows::keep),
      expected_entries_(std::max<std::int64_t>(expected_entries, 0)) {
  window_ = std::clamp<std::int64_t>(max_open_rows, 1, std::max<std::int64_t>(n_local, 1));
  const size_t ring = std::min<size_t>(std::bit_ceil(static_cast<size_t>(window_)), kFirstRing);
  storage_.resize(ring);
  for (auto& r : storage_) open_.push_back(&r);
  const auto entries = static_cast<size_t>(std::max<std::int64_t>(expected_entries, 0));
  first_visits_capacity_ = std::clamp<size_t>(2 * entries / static_cast<size_t>(std::max<std::int64_t>(n_local, 1)), 16, 4096);
  if (keep_by_length_) {
    auto& m = out_.by_length;
    m.indptr.reserve(static_cast<size_t>(n_local) + 1);
    m.indptr.push_back(0);
    m.col.reserve(entries);
    m.length.reserve(entries);
    m.value.reserve(entries);
  }
  auto& phi = out_.phi;
  phi.indptr.reserve(static_cast<size_t>(n_local) + 1);
  phi.indptr.push_back(0);
  phi.col.reserve(entries);
  phi.value.reserve(entries);
  build_complete_rows(n_local);  // leading rows without walkers: the window must start at the first row with some
}

// The open rows keep their addresses (the engine holds pointers to their visit buffers): the ring holds
// pointers into storage_, which only grows at its end.
void GrfRowAssembler::grow_ring(size_t ahead) {
  const size_t old_size = open_.size(), new_size = std::bit_ceil(ahead + 1);
  std::vector<OpenRow*> larger(new_size, nullptr);
  for (size_t k = 0; k < old_size; ++k) {  // the rows next_row_ .. next_row_ + old_size - 1 keep their records
    const auto row = static_cast<size_t>(next_row_) + k;
    larger[row & (new_size - 1)] = open_[row & (old_size - 1)];
  }
  storage_.resize(new_size);
  size_t fresh = old_size;
  for (auto& r : larger)
    if (!r) r = &storage_[fresh++];
  open_ = std::move(larger);
}

std::vector<RowVisit>* GrfRowAssembler::visit_buffer(std::uint32_t row) {
  auto& r = slot(row);
  if (r.visits.capacity() == 0) {
    if (!spare_.empty()) {  // reuse the buffer of a built row: no fresh memory
      r.visits = std::move(spare_.back());
      spare_.pop_back();
    } else {  // room for twice the expected visits: rows fed in many small pieces (from other ranks) then
              // rarely grow by reallocation
      r.visits.reserve(first_visits_capacity_);
    }
  }
  return &r.visits;
}

void GrfRowAssembler::visits_appended(std::uint32_t, std::int64_t count) {
  pending_ += count;
  peak_pending_ = std::max(peak_pending_, pending_);
}

void GrfRowAssembler::add_visits(std::uint32_t row, std::span<const Deposit> visits) {
  auto& r = *visit_buffer(row);
  for (const Deposit& d : visits) r.push_back(row_visit(d));
  visits_appended(row, static_cast<std::int64_t>(visits.size()));
  if (row == next_row_) build_complete_rows(kRowsPerBuild);
}

void GrfRowAssembler::walkers_finished(std::uint32_t row, std::int64_t walkers, std::int64_t hops) {
  auto& r = slot(row);
  r.walkers_done += walkers;
  r.hops_done += hops;
  if (row == next_row_) build_complete_rows(kRowsPerBuild);
}

bool GrfRowAssembler::make_progress() {
  const std::int64_t before = next_row_;
  build_complete_rows(kRowsPerBuild);
  bool built = next_row_ > before;
  for (auto& p : peers_) built |= p.rows->make_progress();
  return built;
}

DepositSink* GrfRowAssembler::peer_rows(int peer, std::int64_t first_global, std::int64_t first_local, std::int64_t rows) {
  if (!builds_peer_rows_) return nullptr;
  // Sized like this rank's rows, pro rata: the peer's rows are drawn from the same graph.
  const std::int64_t entries = expected_entries_ * rows / std::max<std::int64_t>(n_local_, 1);
  peers_.push_back({peer, first_local,
                    std::make_unique<GrfRowAssembler>(first_global, rows, walkers_, f_, window_, entries, std::vector<bool>{},
                                                      keep_by_length_ ? LengthResolvedRows::keep : LengthResolvedRows::drop)});
  return peers_.back().rows.get();
}

std::vector<PeerRows> GrfRowAssembler::finish_peer_rows() {
  std::vector<PeerRows> out;
  for (auto& p : peers_) out.push_back({p.owner, p.first_local, p.rows->finish()});
  peers_.clear();
  return out;
}

void GrfRowAssembler::build_complete_rows(std::int64_t max_rows) {
  for (const std::int64_t stop = std::min(n_local_, next_row_ + max_rows); next_row_ < stop;) {
    auto& r = slot(static_cast<std::uint32_t>(next_row_));
    const auto visits = static_cast<std::int64_t>(r.visits.size());
    const bool starts = starts_.empty() || starts_[static_cast<size_t>(next_row_)];
    if (r.walkers_done < (starts ? walkers_ : 0) || visits != r.hops_done) return;
    if (keep_by_length_) {
      append_length_resolved_row(out_.by_length, r.visits, first_row_ + next_row_, walkers_);
      append_combined_row(out_.phi, out_.by_length, next_row_, f_);
    } else {
      append_grf_row(out_.phi, r.visits, first_row_ + next_row_, walkers_, f_);
    }
    pending_ -= visits;
    r.visits.clear();
    // Rows that never asked for a buffer (no visits, no walkers) leave none to reuse.
    if (r.visits.capacity() > 0 && r.visits.capacity() <= kSlotKeepCapacity) spare_.push_back(std::move(r.visits));
    r.visits = {};
    r.walkers_done = r.hops_done = 0;
    ++next_row_;
    fault_in_output_ahead();
  }
}

void GrfRowAssembler::fault_in_output_ahead() {
  phi_indptr_ahead_.follow(out_.phi.indptr);
  phi_col_ahead_.follow(out_.phi.col);
  phi_value_ahead_.follow(out_.phi.value);
  if (!keep_by_length_) return;
  m_indptr_ahead_.follow(out_.by_length.indptr);
  m_col_ahead_.follow(out_.by_length.col);
  m_length_ahead_.follow(out_.by_length.length);
  m_value_ahead_.follow(out_.by_length.value);
}

AssembledGrf GrfRowAssembler::finish(std::int64_t own_rows) {
  if (own_rows < next_row_ || own_rows > n_local_)
    throw Error("GRF assembly: " + std::to_string(own_rows) + " own rows asked for, " + std::to_string(next_row_) +
                " built of " + std::to_string(n_local_));
  n_local_ = own_rows;
  build_complete_rows(n_local_);
  if (next_row_ < n_local_) {
    const auto& r = slot(static_cast<std::uint32_t>(next_row_));
    throw Error("GRF assembly: row " + std::to_string(first_row_ + next_row_) + " incomplete after the walks (" +
                std::to_string(r.walkers_done) + " of " + std::to_string(walkers_) + " walkers ended, " +
                std::to_string(r.visits.size()) + " of " + std::to_string(r.hops_done) + " visits arrived)");
  }
  open_ = {};
  storage_ = {};
  spare_ = {};
  return std::move(out_);
}

}  // namespace graphrf
