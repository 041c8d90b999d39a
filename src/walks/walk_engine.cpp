#include "graphrf/walks/walk_engine.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <optional>

#include "graphrf/core/error.hpp"
#include "graphrf/core/timer.hpp"
#include "graphrf/graph/canonical_order.hpp"
#include "graphrf/mpi/batched_exchange.hpp"
#include "graphrf/mpi/counted_termination.hpp"
#include "graphrf/walks/load_factors.hpp"
#include "graphrf/walks/repelling_packs.hpp"
#include "graphrf/walks/row_requests.hpp"
#include "graphrf/walks/start_row_claims.hpp"
#include "graphrf/walks/walk_hop.hpp"

namespace graphrf {

namespace {

constexpr int kWalkerTag = 7401;
constexpr int kDepositTag = 7402;
constexpr int kCongestionTag = 7403;
constexpr int kRowRequestTag = 7404;
constexpr int kRowGrantTag = 7405;
// A deposit with this column is a completion record: a walker from start row .row ended after .step hops.
constexpr std::int64_t kWalkerFinished = -1;
// Walker and deposit batches leave at least this often while busy, not only when full: a row is built only
// once its walkers' visits are all home, and rows start only within a window after the oldest unbuilt row,
// so a walker or visit waiting in a part-filled batch (0.1% of hops cross ranks on a grid: a batch of 4096
// walkers fills in 0.2 s) stalls its home rank once the window is full. A crossing walker's round trip (out in
// one batch, its visits and completion record back in another) takes up to two intervals, and the window is
// about 10 ms of walking (2^19 visits at 50M hops/s): at 5 ms, GRF construction on grid:1000x1000 with
// --host-size 1 spent a third of its time with the window full (29-40M hops/s at n 10, 55-58M at 0.5 ms). Where
// many hops cross (random graphs) batches fill long before; there the interval changes nothing.
constexpr double kBatchFlushSeconds = 0.0005;

// Sent to the ranks of other hosts (those that can send walkers here) when this rank's backlog of received walkers
// rises above the walkers in flight a rank may hold (congested = 1), and again once it is down to half of that (0).
struct CongestionNotice {
  std::int32_t congested;
};

// With a replicated graph, a rank out of start rows asks another for some (row_requests.hpp) and is answered with
// rows begin .. end - 1 of the owner's (none: begin == end).
struct RowRequest {
  std::int64_t min_rows, max_rows;
};
struct RowGrant {
  std::int64_t begin, end;
};

struct Walker {
  std::int64_t start_id;  // original id of the start node: the key of every random draw
  std::int64_t start;     // global index of the start node: where deposits go
  std::int64_t at;        // global index of the current node
  std::int32_t walker;
  std::int32_t step;
  double load;
};

class WalkSimulation {
 public:
  WalkSimulation(const DistributedGraph& g, const WalkOptions& o, const Log& log, const WalkLimits& limits,
                 DepositSink* sink, const WalkArcs* table)
      : g_(g), o_(o), iid_(o.halt_probability()), compensation_(halting_compensation(o)), log_(log),
        limits_(limits), sink_(sink), p_(g.comm->size()), exchange_(*g.comm),
        walkers_out_(exchange_, kWalkerTag, limits.walker_batch), deposits_out_(exchange_, kDepositTag, limits.deposit_batch),
        notices_out_(exchange_, kCongestionTag, 1), requests_out_(exchange_, kRowRequestTag, 1),
        grants_out_(exchange_, kRowGrantTag, 1),
        total_walkers_(count_walkers()), termination_(exchange_.comm(), total_walkers_, 3) {
    first_ = g.first();
    last_ = first_ + g.n_local();
    if (!table || !table->serves(g, o)) table = &own_table_.emplace(g, o);
    arcs_ = table->arcs();
    row_ptr_ = table->row_ptr();
    cumulative_ = table->cumulative();
    host_first_ = table->first();
    host_end_ = table->end();
    replicated_ = table->replicated();
    if (g.hosts && g.hosts->size() > 1) hosts_ = g.hosts.get();
    histogram_.assign(static_cast<size_t>(o.max_length) + 1, 0);
    if (limits.deposit_endpoints && !sink) throw Error("run_walks: deposit_endpoints needs a deposit sink");
    record_visits_ = sink && !limits.deposit_endpoints;
    repelling_ = is_repelling(o.coupling);
    sigma_pairs_ = o.quantile < 0 && termination_of(o.coupling) == Termination::sigma;
    if (limits.count_endpoints) endpoint_counts_.assign(static_cast<size_t>(host_end_ - host_first_), 0);
    if (o.teleport_dangling) build_teleport_table();
    start_ids_ = table->original_ids();
    if (shares_start_rows()) {
      if (replicated_) requests_.emplace(g.comm->rank(), p_, g.n_local());  // between hosts: by message
      else claims_.emplace(hosts_->host(), g.n_local());                     // inside one host: shared words
    }
  }

  // Whether start rows are shared out (see walk_engine.hpp): the whole run is one host, or every host holds the
  // whole graph, so no walker started for another rank leaves the rank that walks it and every visit of its row
  // stays there. The same answer on every rank.
  bool shares_start_rows() const {
    const bool no_walker_leaves = replicated_ || (hosts_ && hosts_->count() == 1);
    if (!no_walker_leaves || repelling_ || o_.start_every != 1 || limits_.deposit_endpoints ||
        (sink_ && !sink_->builds_peer_rows()))
      return false;
    for (int r = 0; r < p_; ++r)  // claim words hold 32-bit rows
      if (g_.dist.count(r) >= (std::int64_t{1} << 32)) return false;
    return true;
  }

  // Whether a node is this rank's (its start rows) / on this rank's host (walked here without a message).
  bool is_local(std::int64_t global) const { return global >= first_ && global < last_; }
  bool on_host(std::int64_t global) const { return global >= host_first_ && global < host_end_; }
  // A node's row in the host's arc table.
  size_t host_row(std::int64_t global) const { return static_cast<size_t>(global - host_first_); }

  // Collective: the walkers of the whole run.
  std::int64_t count_walkers() const {
    std::int64_t starts_here = 0;
    for (std::int64_t i = 0; i < g_.n_local(); ++i) starts_here += is_start(i);
    return g_.comm->sum(starts_here) * o_.walkers;
  }

  WalkResult run() {
    Timer timer;
    last_progress_ = -1e300;
    double last_flush = 0, last_round = 0;
    while (!all_finished_) {
      receive_available();
      tell_congestion();
      // Repelling: groups first, then the walkers that are alone (they run in lanes, see walk_engine.hpp).
      const bool grouped = repelling_ && work_groups();
      const bool assembled = sink_ && sink_->make_progress();
      const bool worked = work() || grouped || assembled;
      const double now = timer.seconds();
      if (worked) busy_seconds_ = now;
      else waiting_seconds_ += now - last_round;
      last_round = now;
      if (!worked || now - last_flush >= kBatchFlushSeconds) {
        walkers_out_.flush();
        deposits_out_.flush();
        last_flush = now;
      }
      exchange_.reclaim(false);
      const std::array<std::int64_t, 3> counts{finished_, hops_, cross_hops_};
      if (termination_.advance(!worked, now, counts)) report_progress(now);
      all_finished_ = termination_.finished();
    }
    // After the last walker: receive exactly the deposit batches others sent here.
    exchange_.drain(deposits_out_, [&](const Arrival& a) { receive(a); });
    exchange_.drain(notices_out_, [&](const Arrival& a) { receive(a); });
    // Requests for rows that arrived after the last walker are answered (nothing is left), and the answers taken.
    exchange_.drain(requests_out_, [&](const Arrival& a) { receive(a); });
    exchange_.drain(grants_out_, [&](const Arrival& a) { receive(a); });
    WalkResult result;
    result.own_rows_end = claims_ ? claims_->own_end() : requests_ ? requests_->own_end() : g_.n_local();
    result.endpoint_counts = owned_endpoint_counts();
    result.stats = global_statistics();
    result.stats.walk_seconds = timer.seconds();
    result.stats.busy_seconds = busy_seconds_;
    result.stats.waiting_seconds = waiting_seconds_;
    result.stats.max_queued = max_queued_;
    return result;
  }

 private:
  // The hot loop. kLanes walkers advance round-robin, one hop per round: follow the arc picked last round
  // (its entry also holds the target's row, so a hop reads one cache line), then deposit, draw, pick the next
  // arc and prefetch it. A walker's memory access is issued one round before it is used, so up to kLanes
  // cache misses are in flight at once instead of one (memory-level parallelism). A lane takes a start node of
  // this rank at a time and runs its n walkers one after another (row mode): the node's row and its random
  // root are read once for all of them, a walker that ends at home hands the lane to the next one within the
  // same round, and the sink hears of the row once, when its last walker is done. Walkers arriving from other
  // ranks (or a repelling group) take a lane of their own. The common case (iid termination, uniform steps)
  // is compiled apart, without the couplings' branches. Returns false when there was nothing to do.
  bool work() {
    if (iid_steps(o_) && o_.step == StepRule::uniform)
      return record_visits_ ? work_lanes<true, true>() : work_lanes<true, false>();
    return record_visits_ ? work_lanes<false, true>() : work_lanes<false, false>();
  }

  template <bool kIid, bool kRecord>
  bool work_lanes() {
    bool any = false;
    for (int round = 0; round < 64; ++round) {
      int live = 0;
      for (auto& lane : lanes_) {
        if (!lane.live) {
          const Refill r = refill(lane);
          if (r == Refill::none) continue;
          if (r != Refill::same_round) {  // its first step waits a round for its row or its random root
            ++live;
            continue;
          }
        }
        ++live;
        advance<kIid, kRecord>(lane);
      }
      if (live == 0) break;
      any = true;
    }
    return any;
  }

  struct Lane {
    Walker w;
    std::int64_t arc = -1;     // >= 0: the arc picked last round (prefetched), followed at the start of this one
    std::int64_t begin = -1;   // the current node's arcs: begin .. begin + degree (-1: not read yet)
    std::int64_t degree = 0;
    bool live = false;
    bool row_mode = false;     // running the walkers of a start node of this rank, one after another
    WalkerDraws random;        // the walker's stream and coupling draws
    // I.i.d. steps: the word of the walker's current step, computed a round ahead (and for a start node's next
    // walker, one walker ahead), so that the halting branch waits for a load, not for the word's three
    // dependent multiplications: at p_halt 0.5 that branch is mispredicted every other step.
    std::uint64_t word = 0;
    WalkerStream next_stream;
    std::uint64_t next_word = 0;
    std::vector<Deposit> visits;  // this walker's deposits for a row of another rank, flushed as one run
    std::vector<RowVisit>* home = nullptr;  // or its start row's buffer, when that row is ours
    DepositSink* row_sink = nullptr;        // the sink of its start row when that is walked here, and its number
    std::uint32_t sink_row = 0;             // there (this rank's local row, or a peer's row in a peer_rows sink)
    bool home_later = false;  // row mode: the start row's buffer is asked for at its first visit (at p_halt 0.5
                              // and one walker, half the rows have none and need no buffer)
    std::int64_t home_count = 0;            // visits appended there, not yet reported to the sink
    // Row mode: the start node's random root and arcs, and its walkers that ended in this lane.
    StartNodeStreams root;
    std::int64_t row_begin = 0, row_degree = 0;
    std::int64_t row_walkers_ended = 0, row_hops_ended = 0;
    std::vector<std::int64_t> partner_length;  // sigma: the second length of each pair
  };
  static constexpr int kLanes = 48;

  // Work for an empty lane: a received walker (or a repelling walker gone alone) first, then the next start
  // node from the generation cursor. Received walkers are taken in arrival order: a row is built only once
  // every walker that left it is done, and its rank opens rows only within a window after the oldest unbuilt
  // one, so a walker left at the bottom of a queue taken from the top (as it was) held its home rank's window
  // while a slower rank kept receiving newer walkers. A received walker not prepared ahead (prepare_queued)
  // makes its first step in the next round: its row is seldom in cache, and deriving its stream (a Philox block)
  // would otherwise hold up the halting decision that follows. A start node's walkers step at once: their roots
  // are computed ahead.
  enum class Refill { none, next_round, same_round };
  Refill refill(Lane& lane) {
    if (queued() > 0) {
      // A walker whose stream is derived steps in this round: one prepared kQueueAhead refills ago (its row
      // prefetched too), or a repelling walker gone alone (its group derived the stream; its row is not fetched).
      const size_t k = queue_head_++;
      const bool prepared = queue_random_[k].stream.ready();
      lane.w = queue_[k];
      lane.random = queue_random_[k];
      if (k + kQueueAhead < queue_.size()) prepare_queued(k + kQueueAhead);
      compact_queue();
      lane.row_mode = false;
      lane.arc = -1;
      lane.begin = -1;
      lane.live = true;
      lane.home_count = 0;
      // A walker back at home puts its visits straight into its row's buffer (when the sink offers one).
      lane.home_later = false;
      const bool home = record_visits_ && is_local(lane.w.start);
      lane.row_sink = home ? sink_ : nullptr;
      lane.sink_row = static_cast<std::uint32_t>(lane.w.start - first_);
      lane.home = home ? sink_->visit_buffer(lane.sink_row) : nullptr;
      lane.word = step_word(o_, lane.w.start_id, lane.w.walker, lane.w.step, lane.random);
      if (prepared) return Refill::same_round;
      __builtin_prefetch(&row_ptr_[host_row(lane.w.at)]);
      return Refill::next_round;
    }
    return start_row(lane) ? Refill::same_round : Refill::none;
  }

  // Received walkers are taken from the back of the queue; the one kQueueAhead places before the back gets its
  // stream (a Philox block) and its row's cache line now, so that a lane can take it and step at once, as it does
  // a start node's next walker, instead of waiting a round for both.
  static constexpr size_t kQueueAhead = 8;
  size_t queued() const { return queue_.size() - queue_head_; }
  // Drops the taken walkers at the front of the queue once they are a quarter of it: at most 4/3 of the walkers
  // waiting are stored, and a walker is moved a bounded number of times on average.
  void compact_queue() {
    if (queue_head_ == queue_.size()) {
      queue_.clear();
      queue_random_.clear();
      queue_head_ = 0;
    } else if (queue_head_ >= 1024 && 4 * queue_head_ >= queue_.size()) {
      queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(queue_head_));
      queue_random_.erase(queue_random_.begin(), queue_random_.begin() + static_cast<std::ptrdiff_t>(queue_head_));
      queue_head_ = 0;
    }
  }
  void prepare_queued(size_t k) {
    stream_of(o_, queue_[k].start_id, queue_[k].walker, queue_random_[k]);
    __builtin_prefetch(&row_ptr_[host_row(queue_[k].at)]);
  }

  // Start nodes whose random roots are computed ahead, a batch at a time, in ascending order within each claim:
  // the Philox calls of a batch overlap, and a lane that takes one makes its first step at once.
  struct PreparedRow {
    std::int64_t start, id, begin, degree;  // the node (global index), its original id and its arcs
    StartNodeStreams root;
    std::uint64_t first_word;  // walker 0's word at step 0
    DepositSink* sink;         // where its visits go, as row sink_row
    std::uint32_t sink_row;
  };

  // Start rows being prepared: local rows of their owner (this rank, or a host peer whose rows were claimed), the
  // sink their visits go to and the owner's local row that is that sink's row 0.
  struct Claim {
    RowRange rows;
    std::int64_t owner_first = 0;  // global index of the owner's local row 0
    DepositSink* sink = nullptr;
    std::int64_t sink_first = 0;
    bool own = true;
  };

  // A rank's own rows are claimed this many at a time: a claim is a locked instruction, which waits for the lanes'
  // loads in flight, and a batch is what a peer can no longer take (64 rows walk in tens of microseconds).
  static constexpr std::int64_t kOwnRowsPerClaim = 64;

  // The most peers' rows this rank walks (WalkLimits::max_peer_row_share).
  std::int64_t max_peer_rows() const {
    return static_cast<std::int64_t>(limits_.max_peer_row_share * static_cast<double>(g_.n_local()));
  }

  // The next start rows to prepare: all of this rank's at once, or with shared rows a batch of its own, then the
  // back half of a peer's unstarted rows. False when none are left.
  bool next_claim() {
    if (!claims_ && !requests_) {
      if (own_rows_given_) return false;
      own_rows_given_ = true;
      claim_ = Claim{{0, g_.n_local()}, first_, sink_, 0, true};
      return !claim_.rows.empty();
    }
    const RowRange own = claims_ ? claims_->claim_own(kOwnRowsPerClaim) : requests_->claim_own(kOwnRowsPerClaim);
    if (!own.empty()) {
      claim_ = Claim{own, first_, sink_, 0, true};
      return true;
    }
    if (peers_emptied_) return false;
    const std::int64_t room = max_peer_rows() - rows_for_peers_;
    const bool has_room = room >= std::max<std::int64_t>(limits_.min_shared_rows, 1);
    std::optional<StartRowClaims::PeerRows> taken;
    if (requests_) {
      taken = requests_->take_granted();
      if (!taken) {
        // Between hosts a claim is a request answered later: ask (one request at a time) and look again.
        if (!has_room || requests_->done_asking()) peers_emptied_ = true;
        else if (const std::optional<int> owner = requests_->ask())
          requests_out_.append(*owner, RowRequest{limits_.min_shared_rows, room});
        return false;
      }
    } else if (has_room) {
      taken = claims_->claim_from_peer(limits_.min_shared_rows, room);
    }
    if (!taken) {  // what peers have left only shrinks, and so does the room: no later attempt could succeed
      peers_emptied_ = true;
      return false;
    }
    const int owner = requests_ ? taken->peer : hosts_->first_rank(hosts_->index()) + taken->peer;
    const std::int64_t owner_first = g_.dist.first(owner);
    DepositSink* sink = nullptr;
    if (sink_) {
      sink = sink_->peer_rows(owner, owner_first + taken->rows.begin, taken->rows.begin, taken->rows.size());
      if (!sink) throw Error("run_walks: the deposit sink builds peer rows but gave no sink for them");
    }
    claim_ = Claim{taken->rows, owner_first, sink, taken->rows.begin, false};
    rows_for_peers_ += taken->rows.size();
    return true;
  }

  // Whether a start node is left to take (refilling the batch when it ran out).
  bool prepared_row_left() {
    if (prepared_head_ < prepared_count_) return true;
    prepared_head_ = prepared_count_ = 0;
    while (prepared_count_ < prepared_.size()) {
      if (claim_.rows.empty() && !next_claim()) break;
      const std::int64_t local = claim_.rows.begin++;
      if (claim_.own && !is_start(local)) continue;
      const std::int64_t start = claim_.owner_first + local;
      const auto v = host_row(start);
      const std::int64_t id = claim_.own ? g_.original_id[static_cast<size_t>(local)] : start_ids_[v];
      const StartNodeStreams root = roots_(id);
      prepared_[prepared_count_++] = {start, id, row_ptr_[v], row_ptr_[v + 1] - row_ptr_[v], root,
                                      root.walker(0).word(0), claim_.sink,
                                      static_cast<std::uint32_t>(local - claim_.sink_first)};
    }
    return prepared_count_ > 0;
  }

  // The next start node of this rank into an empty lane (row mode), if one is left, the walkers in flight
  // leave room and the sink has room for its row (rows open in ascending order).
  bool start_row(Lane& lane) {
    if (repelling_ || congested_peers_ > 0 || !prepared_row_left() || in_flight() >= limits_.max_walkers_in_flight)
      return false;
    const PreparedRow& row = prepared_[prepared_head_];
    if (row.sink && !row.sink->can_start_row(row.sink_row)) return false;
    ++prepared_head_;
    const std::int64_t start = row.start;
    lane.row_sink = row.sink;
    lane.sink_row = row.sink_row;
    lane.row_mode = true;
    lane.live = true;
    lane.w = Walker{row.id, start, start, 0, 0, 1.0};
    lane.root = row.root;
    lane.row_begin = row.begin;
    lane.row_degree = row.degree;
    lane.row_walkers_ended = lane.row_hops_ended = 0;
    lane.home_count = 0;
    lane.home = nullptr;
    lane.home_later = record_visits_;
    started_ += o_.walkers;
    lane.next_stream = row.root.walker(0);
    lane.next_word = row.first_word;
    begin_walker(lane);
    return true;
  }

  // Walker lane.w.walker of the lane's start node, at the start node before its first step.
  __attribute__((always_inline)) void begin_walker(Lane& lane) {
    Walker& w = lane.w;
    w.at = w.start;
    w.step = 0;
    w.load = 1.0;
    lane.arc = -1;
    lane.begin = lane.row_begin;
    lane.degree = lane.row_degree;
    lane.random.forget();
    lane.random.stream = lane.next_stream;  // prepared with the previous walker
    lane.word = lane.next_word;
    if (w.walker + 1 < o_.walkers) {
      lane.next_stream = lane.root.walker(w.walker + 1);
      lane.next_word = lane.next_stream.word(0);
    }
    if (sigma_pairs_) [[unlikely]] lane.random.length = take_sigma_length(lane.partner_length, lane.random.stream, w.walker);
  }

  // Sigma pairs (learned lengths, not quantile runs): a node's walkers start in order (one after another in a
  // lane, all together in a pack's first step), so walker k < n/2 draws its pair's words once and leaves the
  // second length in `partners` for walker k + n/2 (two logarithms per pair).
  std::int64_t take_sigma_length(std::vector<std::int64_t>& partners, const WalkerStream& stream, std::int64_t walker) {
    const std::int64_t half = o_.walkers / 2;
    if (walker >= half) return partners[static_cast<size_t>(walker - half)];
    partners.resize(static_cast<size_t>(half));
    const PairLengths pair = sigma_pair_lengths(o_, pair_stream(stream, walker, o_.walkers, walker), log_keep_);
    partners[static_cast<size_t>(walker)] = pair.second;
    return pair.first;
  }

  std::int64_t in_flight() const {
    return static_cast<std::int64_t>(queued() + group_walkers_.size() - group_heads_done()) + walkers_out_.buffered();
  }

  // A walker for the lanes; `random` holds draws already made for it (they are keyed by its ids, so any
  // rank may reuse them).
  void enqueue(const Walker& w, const WalkerDraws& random = WalkerDraws{}) {
    queue_.push_back(w);
    queue_random_.push_back(random);
  }

  size_t group_heads_done() const {  // walkers of processed groups still stored at the front of the queue
    return next_group_ < group_heads_.size() ? group_heads_[next_group_] : group_walkers_.size();
  }

  bool is_start(std::int64_t local) const {
    return o_.start_every == 1 || starts_walkers(o_, g_.canonical_index[static_cast<size_t>(local)]);
  }

  // Moves the generation cursor to the next node where walkers start; false when there is none left.
  bool advance_to_start_node() {
    while (next_node_ < g_.n_local() && !is_start(next_node_)) ++next_node_;
    return next_node_ < g_.n_local();
  }

  // Whether the sink has room for the walkers of the next start node (rows open in ascending order).
  bool may_start_row() const { return !sink_ || sink_->can_start_row(next_node_); }

  // Teleports pick a node by canonical index (the same on every rank count and partition). Each rank knows the
  // global index of the nodes of its block of canonical indices only (the blocks outputs are written in: N / P
  // entries, not N, which is 8 GB a rank at 10^9 nodes), so a walker whose draw lies in another rank's block goes
  // there first (a pending teleport) and on from there to its node.
  void build_teleport_table() {
    const CanonicalOrder order(g_);
    teleport_blocks_ = order.blocks();
    std::vector<std::int64_t> globals(static_cast<size_t>(g_.n_local()));
    std::iota(globals.begin(), globals.end(), first_);
    global_of_canonical_ = order.route_rows<std::int64_t>(globals, 1);
  }

  // A walker's node, or kPendingTeleport - c for a teleport to canonical index c that another rank resolves.
  static constexpr std::int64_t kPendingTeleport = -2;
  static bool pending_teleport(std::int64_t at) { return at <= kPendingTeleport; }
  std::int64_t teleport_target(std::uint64_t bits) const {
    const auto canonical = static_cast<std::int64_t>(uniform_below(bits, static_cast<std::uint64_t>(g_.n_global())));
    const int me = g_.comm->rank();
    if (teleport_blocks_.owner(canonical) != me) return kPendingTeleport - canonical;
    return global_of_canonical_[static_cast<size_t>(canonical - teleport_blocks_.first(me))];
  }
  // Resolves a pending teleport received here (this rank holds its canonical index).
  std::int64_t resolve_teleport(std::int64_t at) const {
    const std::int64_t canonical = kPendingTeleport - at;
    return global_of_canonical_[static_cast<size_t>(canonical - teleport_blocks_.first(g_.comm->rank()))];
  }

  // A walker that stepped onto another host's node (its hop already counted) goes there; a lane in row mode
  // goes on with the start node's next walker.
  [[gnu::noinline, gnu::cold]] void leave(Lane& lane) {
    Walker& w = lane.w;
    ++cross_hops_;
    flush_remote_visits(lane);
    if (repelling_) send_group(&w, 1);  // repelling walker batches hold groups only
    else send_walker(w);
    if (!lane.row_mode) {
      report_home_visits(lane);
      lane.live = false;
      return;
    }
    next_walker(lane);
  }

  template <bool kIid, bool kRecord>
  void advance(Lane& lane) {
    Walker& w = lane.w;
    if (lane.arc >= 0) {  // follow the arc picked last round
      const HopArc& a = arcs_[static_cast<size_t>(lane.arc)];
      w.load *= a.factor;
      w.at = a.target;
      lane.arc = -1;
      ++w.step;
      ++hops_;
      if (a.degree < 0) [[unlikely]] return leave(lane);  // another host's node
      lane.begin = a.begin;
      lane.degree = a.degree;
      if (kRecord) record_visit(lane);
    } else if (lane.begin < 0) {  // a walker new to this lane, or just teleported
      const size_t v = host_row(w.at);
      lane.begin = row_ptr_[v];
      lane.degree = row_ptr_[v + 1] - lane.begin;
      // Step 0 is always the start node with load 1: assembly adds M_0 = I itself, so it is not stored.
      if (kRecord && w.step > 0) record_visit(lane);
    }
    for (;;) {  // once more for the start node's next walker when this one ends at home
      std::uint64_t choice;
      if (w.step == max_length_) [[unlikely]] {
        ++truncated_;
        goto ended;
      }
      if constexpr (kIid) {
        const std::uint64_t word = lane.word;
        if (iid_.halts(word)) goto ended;
        choice = iid_.choice(word);
        lane.word = lane.random.stream.word(w.step + 1);  // for the next round (the stream is ready: see refill)
      } else {
        const WalkDraw draw = draw_hop(o_, iid_, w.start_id, w.walker, w.step, lane.random);
        if (draw.halt) goto ended;
        choice = draw.choice;
      }
      if (lane.degree == 0) [[unlikely]] {
        if (o_.teleport_dangling) return teleport(lane, choice);
        ++dead_ends_;
        goto ended;
      }
      {
        const std::int64_t begin = lane.begin, deg = lane.degree;
        const std::int64_t pick = kIid || o_.step == StepRule::uniform
                                      ? static_cast<std::int64_t>(uniform_below(choice, static_cast<std::uint64_t>(deg)))
                                      : pick_weighted(cumulative_ + begin, deg, choice);
        lane.arc = begin + pick;
        __builtin_prefetch(&arcs_[static_cast<size_t>(lane.arc)]);
        return;
      }
    ended:
      if (!end_walker(lane)) return;
    }
  }

  void record_visit(Lane& lane) {
    const Walker& w = lane.w;
    if (lane.home_later) [[unlikely]] {
      lane.home = lane.row_sink->visit_buffer(lane.sink_row);
      lane.home_later = false;
    }
    if (lane.home) {
      lane.home->push_back(row_visit(w.at, w.step, deposited_load(w)));
      ++lane.home_count;
    } else {
      lane.visits.push_back({w.at, deposited_load(w), 0, w.step});
    }
  }

  // A walker at a node without out-arcs jumps to a uniform node (PageRank); its row is read next round.
  [[gnu::noinline]] void teleport(Lane& lane, std::uint64_t choice) {
    Walker& w = lane.w;
    w.at = teleport_target(choice);
    ++teleports_;
    ++w.step;
    ++hops_;
    lane.begin = -1;
    if (!on_host(w.at)) return leave(lane);
    __builtin_prefetch(&row_ptr_[host_row(w.at)]);
  }

  // Ends the lane's walker; true when the lane goes on at once with the next walker of its start node.
  __attribute__((always_inline)) bool end_walker(Lane& lane) {
    const Walker& w = lane.w;
    end_walk(w);
    if (limits_.deposit_endpoints) lane.visits.push_back({w.at, 1.0, 0, w.step});
    flush_remote_visits(lane);
    if (!lane.row_mode) {
      report_home_visits(lane);
      if (record_visits_) report_finished(w);
      lane.live = false;
      return false;
    }
    if (record_visits_) {
      ++lane.row_walkers_ended;
      lane.row_hops_ended += w.step;
    }
    return next_walker(lane);
  }

  // Row mode: the start node's next walker, or, at the end of the row, the next start node when no walker
  // waits for a lane (false: the lane is free).
  __attribute__((always_inline)) bool next_walker(Lane& lane) {
    if (++lane.w.walker < o_.walkers) {
      begin_walker(lane);
      return true;
    }
    end_row(lane);
    return queued() == 0 && start_row(lane);
  }

  void end_row(Lane& lane) {
    report_home_visits(lane);
    if (lane.row_walkers_ended > 0)
      lane.row_sink->walkers_finished(lane.sink_row, lane.row_walkers_ended, lane.row_hops_ended);
    lane.row_walkers_ended = lane.row_hops_ended = 0;
    lane.live = false;
  }

  // A walker's load as deposited: the product of its arcs' factors, compensated for t hops without halting.
  double deposited_load(const Walker& w) const { return w.load * compensation_[static_cast<size_t>(w.step)]; }

  void end_walk(const Walker& w) {
    ++finished_;
    ++histogram_[static_cast<size_t>(w.step)];
    if (limits_.count_endpoints) ++endpoint_counts_[host_row(w.at)];
  }

  // Visits appended to the lane's home row, told to the sink (at a row's end, or when a lone walker is done).
  void report_home_visits(Lane& lane) {
    if (lane.home_count > 0) lane.row_sink->visits_appended(lane.sink_row, lane.home_count);
    lane.home_count = 0;
  }

  // A walker's visits on this rank for a row of another rank (or for endpoints) go out as one contiguous run,
  // so the owner of its start node receives deposits grouped by walk (assembly then gathers runs, not single
  // deposits).
  void flush_remote_visits(Lane& lane) {
    if (lane.visits.empty()) return;
    if (lane.row_mode && lane.row_sink != sink_) {  // a peer's row walked here
      for (Deposit& d : lane.visits) d.row = lane.sink_row;
      lane.row_sink->add_visits(lane.sink_row, lane.visits);
    } else {
      deposit_run(lane.w.start, lane.visits.data(), lane.visits.size());
    }
    lane.visits.clear();
  }

  void deposit_run(std::int64_t start, Deposit* visits, size_t count) {
    if (count == 0) return;
    if (start >= first_ && start < last_) {
      const auto row = static_cast<std::uint32_t>(start - first_);
      for (size_t k = 0; k < count; ++k) visits[k].row = row;
      sink_->add_visits(row, std::span<const Deposit>(visits, count));
    } else {
      const int dest = g_.owner(start);
      const auto row = static_cast<std::uint32_t>(start - g_.dist.first(dest));
      for (size_t k = 0; k < count; ++k) visits[k].row = row;
      deposits_out_.append(dest, std::span<const Deposit>(visits, count));
    }
  }

  // ---- Repelling couplings: walkers move in groups (see walk_engine.hpp) ----

  // Groups wait in a FIFO queue; new packs join while fewer than kGroupLookahead groups wait, so the rows of
  // groups a few places ahead can be prefetched (their node's row, then its arcs) while this one is
  // processed: the memory-level parallelism that lanes give single walkers.
  static constexpr size_t kGroupLookahead = 32;

  size_t pending_groups() const { return group_sizes_.size() - next_group_; }

  bool work_groups() {
    bool any = false;
    for (int k = 0; k < 256; ++k) {
      while (pending_groups() < kGroupLookahead && start_group()) {
      }
      if (pending_groups() == 0) break;
      prefetch_group(next_group_ + kGroupLookahead / 2, false);
      prefetch_group(next_group_ + kGroupLookahead / 4, true);
      advance_group();
      any = true;
    }
    return any;
  }

  void prefetch_group(size_t g, bool arcs) const {
    if (g >= group_sizes_.size()) return;
    const size_t v = host_row(group_walkers_[group_heads_[g]].at);
    if (!arcs) return __builtin_prefetch(&row_ptr_[v]);
    // The group's walkers spread over the whole row: its first 16 arcs (8 cache lines).
    const std::int64_t begin = row_ptr_[v], end = std::min(row_ptr_[v + 1], begin + 16);
    for (std::int64_t a = begin; a < end; a += 2) __builtin_prefetch(&arcs_[static_cast<size_t>(a)]);
  }

  void push_group(const Walker* walkers, size_t count) {
    group_heads_.push_back(group_walkers_.size());
    group_sizes_.push_back(static_cast<std::int64_t>(count));
    group_walkers_.insert(group_walkers_.end(), walkers, walkers + count);
  }

  // All n walkers of the next start node, as one group (a single walker goes straight to the lanes).
  bool start_group() {
    if (congested_peers_ > 0 || !advance_to_start_node() || in_flight() >= limits_.max_walkers_in_flight || !may_start_row())
      return false;
    const std::int64_t id = g_.original_id[static_cast<size_t>(next_node_)], start = first_ + next_node_;
    if (o_.walkers == 1) {  // a pack of one is a lane walker from the start
      enqueue(Walker{id, start, start, 0, 0, 1.0});
      ++started_;
      ++next_node_;
      return true;
    }
    group_heads_.push_back(group_walkers_.size());
    group_sizes_.push_back(o_.walkers);
    for (std::int64_t k = 0; k < o_.walkers; ++k)
      group_walkers_.push_back(Walker{id, start, start, static_cast<std::int32_t>(k), 0, 1.0});
    started_ += o_.walkers;
    ++next_node_;
    return true;
  }

  // One step of the group at the front of the queue (walkers in ascending walker order, all at one owned node).
  void advance_group() {
    const auto size = static_cast<size_t>(group_sizes_[next_group_]);
    const auto first = group_walkers_.begin() + static_cast<std::ptrdiff_t>(group_heads_[next_group_]);
    group_.assign(first, first + static_cast<std::ptrdiff_t>(size));
    ++next_group_;
    compact_group_queue();
    const Walker head = group_.front();
    if (record_visits_ && head.step > 0)
      for (const Walker& w : group_) deposit_one(w, {w.at, deposited_load(w), 0, w.step});
    if (head.step == max_length_) {
      truncated_ += static_cast<std::int64_t>(size);
      for (const Walker& w : group_) end_group_walker(w);
      return;
    }
    movers_.clear();
    movers_random_.clear();
    // At step 0 the group is the whole pack (walkers 0..n-1 in order) at its start node: each sigma pair's block
    // is drawn once, by its first walker (take_sigma_length).
    const bool pack_lengths = sigma_pairs_ && head.step == 0;
    // Neighbours come from split_pack; every walker's stream is split from the start node's root,
    // derived once for the group, and goes with it to the lanes if it ends up alone.
    const StartNodeStreams root(o_, head.start_id);
    for (const Walker& w : group_) {
      WalkerDraws random;  // handed to the lane if this walker ends up alone
      random.stream = root.walker(w.walker);
      if (pack_lengths) random.length = take_sigma_length(partner_length_, random.stream, w.walker);
      const bool halt = halts(o_, iid_, w.start_id, w.walker, w.step, random);
      if (halt) {
        end_group_walker(w);
      } else {
        movers_.push_back(w);
        movers_random_.push_back(random);
      }
    }
    const auto c = movers_.size();
    if (c == 0) return;
    const size_t v = host_row(head.at);
    const std::int64_t begin = row_ptr_[v], deg = row_ptr_[v + 1] - begin;
    if (deg == 0 && !o_.teleport_dangling) {
      dead_ends_ += static_cast<std::int64_t>(c);
      for (const Walker& w : movers_) end_group_walker(w);
      return;
    }
    if (deg == 0) {  // teleports are independent uniform jumps
      for (size_t k = 0; k < c; ++k)
        movers_[k].at = teleport_target(choice_word(o_, iid_, movers_[k].start_id, movers_[k].walker, movers_[k].step, movers_random_[k]));
      teleports_ += static_cast<std::int64_t>(c);
    } else {
      RepellingWords word(o_, head.start_id, head.walker, head.step);
      split_pack(word, static_cast<std::int64_t>(c), deg, shifts_, [&](const PackChild& child) {
        const HopArc& a = arcs_[static_cast<size_t>(begin + child.offset())];
        for (std::int64_t k = 0; k < child.size(); ++k) {
          Walker& mover = movers_[static_cast<size_t>(child[k])];
          mover.load *= a.factor;
          mover.at = a.target;
        }
      });
    }
    for (Walker& w : movers_) ++w.step;
    hops_ += static_cast<std::int64_t>(c);
    // Child groups: one per destination node, walkers kept in ascending order.
    sort_movers_by_destination(c);
    for (size_t b = 0; b < c;) {
      const Walker& first = movers_[mover_order_[b]];
      size_t e = b + 1;
      while (e < c && movers_[mover_order_[e]].at == first.at) ++e;
      const bool local = on_host(first.at);
      if (!local) cross_hops_ += static_cast<std::int64_t>(e - b);
      if (e - b == 1) {
        if (local) enqueue(first, movers_random_[mover_order_[b]]);  // alone from now on: a lane walker
        else send_group(&first, 1);
      } else {
        child_.clear();
        for (size_t k = b; k < e; ++k) child_.push_back(movers_[mover_order_[k]]);
        if (local) push_group(child_.data(), child_.size());
        else send_group(child_.data(), child_.size());
      }
      b = e;
    }
  }

  // mover_order_: the movers' indices in a stable sort by destination (4-byte indices move, not the 128-byte
  // walker and Philox records). Stratified offsets on a row of ascending targets give a rotated ascending
  // sequence; when its two runs share no node the sorted order is the second run, then the first (what the
  // stable sort gives, found in one pass). Anything else gets an insertion sort.
  void sort_movers_by_destination(size_t c) {
    mover_order_.resize(c);
    size_t descents = 0, wrap = 0;
    for (size_t k = 1; k < c; ++k)
      if (movers_[k].at < movers_[k - 1].at) {
        ++descents;
        wrap = k;
      }
    if (descents == 1 && movers_[c - 1].at < movers_[0].at) {
      for (size_t k = 0; k < c; ++k) mover_order_[k] = static_cast<std::uint32_t>((wrap + k) % c);
      return;
    }
    for (size_t k = 0; k < c; ++k) mover_order_[k] = static_cast<std::uint32_t>(k);
    if (descents == 0) return;
    for (size_t k = 1; k < c; ++k)
      for (size_t j = k; j > 0 && movers_[mover_order_[j - 1]].at > movers_[mover_order_[j]].at; --j)
        std::swap(mover_order_[j - 1], mover_order_[j]);
  }

  // Drops processed groups from the front of the queue once they are the larger part of it.
  void compact_group_queue() {
    if (next_group_ < 4096 || next_group_ * 2 < group_sizes_.size()) return;
    const size_t drop = group_heads_done();
    group_walkers_.erase(group_walkers_.begin(), group_walkers_.begin() + static_cast<std::ptrdiff_t>(drop));
    group_heads_.erase(group_heads_.begin(), group_heads_.begin() + static_cast<std::ptrdiff_t>(next_group_));
    group_sizes_.erase(group_sizes_.begin(), group_sizes_.begin() + static_cast<std::ptrdiff_t>(next_group_));
    for (auto& h : group_heads_) h -= drop;
    next_group_ = 0;
  }

  void end_group_walker(const Walker& w) {
    end_walk(w);
    if (limits_.deposit_endpoints) deposit_one(w, {w.at, 1.0, 0, w.step});
    if (record_visits_) report_finished(w);
  }

  void deposit_one(const Walker& w, Deposit d) { deposit_run(w.start, &d, 1); }

  // A group leaves as a header record (walker = -size) followed by its walkers, never split across batches.
  void send_group(const Walker* walkers, size_t count) {
    const int dest = destination(walkers[0]);
    Walker header{};
    header.walker = -static_cast<std::int32_t>(count);
    walkers_out_.append(dest, header, std::span<const Walker>(walkers, count));
  }

  void receive_groups(const Arrival& arrival) {
    inbox_.resize(arrival.count<Walker>());
    walkers_out_.receive(arrival, inbox_.data());
    for (size_t k = 0; k < inbox_.size();) {
      const auto count = static_cast<size_t>(-inbox_[k].walker);
      Walker* group = inbox_.data() + k + 1;
      k += 1 + count;
      if (pending_teleport(group[0].at)) {  // a group shares its node: all of it teleported to the same one
        const std::int64_t at = resolve_teleport(group[0].at);
        for (size_t j = 0; j < count; ++j) group[j].at = at;
        if (!on_host(at)) {
          send_group(group, count);
          continue;
        }
      }
      if (count == 1) enqueue(group[0]);
      else push_group(group, count);
    }
  }

  // Received walkers from queue_[from] on: those with a pending teleport take their node, and go on to its host
  // when that is another (the crossing was counted when they teleported).
  void forward_teleported(size_t from) {
    size_t kept = from;
    for (size_t k = from; k < queue_.size(); ++k) {
      Walker& w = queue_[k];
      if (pending_teleport(w.at)) {
        w.at = resolve_teleport(w.at);
        if (!on_host(w.at)) {
          send_walker(w);
          continue;
        }
      }
      queue_[kept++] = w;
    }
    queue_.resize(kept);
    queue_random_.resize(kept);
  }

  // The home rank counts completions: directly when the walker ends at home, else by a completion record
  // that travels behind the walker's last visits.
  void report_finished(const Walker& w) {
    if (w.start >= first_ && w.start < last_) return sink_->walker_finished(static_cast<std::uint32_t>(w.start - first_), w.step);
    const int dest = g_.owner(w.start);
    deposits_out_.append(dest, {kWalkerFinished, 0.0, static_cast<std::uint32_t>(w.start - g_.dist.first(dest)), w.step});
  }

  // A received deposit batch: runs of one row's visits and completion records, handed to the sink in order.
  void deliver(std::span<const Deposit> batch) {
    for (size_t k = 0; k < batch.size();) {
      const Deposit& d = batch[k];
      if (d.col == kWalkerFinished) {
        sink_->walker_finished(d.row, d.step);
        ++k;
        continue;
      }
      size_t e = k + 1;
      while (e < batch.size() && batch[e].row == d.row && batch[e].col != kWalkerFinished) ++e;
      sink_->add_visits(d.row, batch.subspan(k, e - k));
      k = e;
    }
  }

  void send_walker(const Walker& w) { walkers_out_.append(destination(w), w); }

  // The rank a walker goes to when it steps onto another host: the owner of its start node when that lies on
  // the host (the walker comes home and its visits go straight into its row), else the owner of its node. Either
  // way it walks the whole host there, so every walker away from home has its start on another host.
  int destination(const Walker& w) const {
    if (pending_teleport(w.at)) return teleport_blocks_.owner(kPendingTeleport - w.at);
    const int owner = g_.owner(w.at);
    if (!hosts_) return owner;
    const int home = g_.owner(w.start);
    return hosts_->host_of(home) == hosts_->host_of(owner) ? home : owner;
  }

  // Receives one probed message of either kind.
  void receive(const Arrival& arrival) {
    if (walkers_out_.carries(arrival) && repelling_) {
      receive_groups(arrival);
    } else if (walkers_out_.carries(arrival)) {
      const size_t old = queue_.size();
      queue_.resize(old + arrival.count<Walker>());
      queue_random_.resize(queue_.size());
      walkers_out_.receive(arrival, queue_.data() + old);
      if (o_.teleport_dangling) forward_teleported(old);
      max_queued_ = std::max(max_queued_, static_cast<std::int64_t>(queued()));
    } else if (notices_out_.carries(arrival)) {
      CongestionNotice notice{};
      notices_out_.receive(arrival, &notice);
      congested_peers_ += notice.congested ? 1 : -1;
    } else if (requests_out_.carries(arrival)) {
      RowRequest request{};
      requests_out_.receive(arrival, &request);
      const RowRange rows = requests_ ? requests_->give(request.min_rows, request.max_rows) : RowRange{};
      grants_out_.append(arrival.source, RowGrant{rows.begin, rows.end});
    } else if (grants_out_.carries(arrival)) {
      RowGrant grant{};
      grants_out_.receive(arrival, &grant);
      if (!requests_) throw Error("run_walks: rows granted to a rank that asked for none");
      requests_->answered(arrival.source, {grant.begin, grant.end});
    } else {
      incoming_.resize(arrival.count<Deposit>());
      deposits_out_.receive(arrival, incoming_.data());
      deliver(incoming_);
    }
  }

  // Walks ending anywhere on the host (the whole graph when it is replicated) were counted here by their node;
  // each owner takes the sums for its nodes (integers: exact in any order).
  std::vector<std::int64_t> owned_endpoint_counts() {
    if (limits_.count_endpoints && replicated_) {
      const std::vector<std::int64_t> all = g_.comm->sum(std::move(endpoint_counts_));
      return std::vector<std::int64_t>(all.begin() + first_, all.begin() + last_);
    }
    if (!limits_.count_endpoints || !hosts_) return std::move(endpoint_counts_);
    const std::vector<std::int64_t> host_counts = hosts_->host().sum(std::move(endpoint_counts_));
    const auto begin = host_counts.begin() + static_cast<std::ptrdiff_t>(first_ - host_first_);
    return std::vector<std::int64_t>(begin, begin + static_cast<std::ptrdiff_t>(last_ - first_));
  }

  // Flow control between hosts. A rank starts walkers at its own pace, and a walker that crosses to another host
  // leaves its count of walkers in flight; a slower rank (a slower core, more hops on its nodes) then piles up the
  // others' walkers faster than it walks them: 3.2 million waited in one rank's queue (about 200 MB, against a cap
  // of 2^18 walkers a rank) in a walk phase on random:1000000:10 with --host-size 1 at np 2. So a rank whose
  // backlog of received walkers passes the cap tells the ranks of other hosts, and they start no more
  // walkers until it has worked the backlog down to half (walkers under way keep moving, so nothing waits on
  // itself). Its own start nodes wait too: lanes take received walkers first.
  void tell_congestion() {
    const auto waiting = static_cast<std::int64_t>(queued());
    const bool congested = congested_ ? waiting > limits_.max_walkers_in_flight / 2 : waiting > limits_.max_walkers_in_flight;
    if (congested == congested_) return;
    congested_ = congested;
    for (int r = 0; r < p_; ++r)
      if (hosts_ ? !hosts_->same_host(r) : r != g_.comm->rank()) notices_out_.append(r, CongestionNotice{congested ? 1 : 0});
  }

  void receive_available() {
    while (const std::optional<Arrival> arrival = exchange_.probe()) receive(*arrival);
  }

  void report_progress(double now) {
    if (limits_.progress_seconds <= 0 || log_.quiet()) return;
    // Short runs stay silent; long ones get a line every progress_seconds on a terminal (rewritten in place)
    // and every 10 x progress_seconds in a log file (plain lines), and a final one.
    const double interval = log_.terminal() ? limits_.progress_seconds : 10 * limits_.progress_seconds;
    if (!all_finished_ && (now < limits_.progress_seconds || now - last_progress_ < interval)) return;
    const std::vector<std::int64_t>& sums = termination_.sums();  // finished walkers, hops, cross-rank hops
    const double rate = now > 0 ? static_cast<double>(sums[1]) / now : 0.0;
    const std::int64_t alive = total_walkers_ - sums[0];
    const double finish_rate = now > 0 ? static_cast<double>(sums[0]) / now : 0.0;
    std::string line = "walk        " + fmt(now, 1) + " s: " + std::to_string(alive) + " walkers alive of " +
                       std::to_string(total_walkers_) + ", " + fmt(rate / 1e6, 2) + "M hops/s";
    if (!all_finished_ && finish_rate > 0) line += ", ETA " + fmt(static_cast<double>(alive) / finish_rate, 0) + " s";
    if (last_progress_ > -1e299 || !all_finished_) log_.progress(line, all_finished_);
    last_progress_ = now;
  }

  WalkStatistics global_statistics() {
    const Communicator& c = *g_.comm;
    WalkStatistics s;
    s.walkers = c.sum(started_);
    s.hops = c.sum(hops_);
    s.dead_ends = c.sum(dead_ends_);
    s.teleports = c.sum(teleports_);
    s.truncated = c.sum(truncated_);
    s.cross_rank_hops = c.sum(cross_hops_);
    s.rows_walked_by_peers = c.sum(rows_for_peers_);
    s.length_histogram = c.sum(histogram_);
    s.messages_sent = exchange_.messages_sent();
    s.bytes_sent = exchange_.bytes_sent();
    // Conservation: every walker started once and finished once; every hop is counted once.
    std::int64_t finished = 0, hop_sum = 0;
    for (size_t t = 0; t < s.length_histogram.size(); ++t) {
      finished += s.length_histogram[t];
      hop_sum += static_cast<std::int64_t>(t) * s.length_histogram[t];
    }
    if (s.walkers != total_walkers_ || finished != s.walkers || hop_sum != s.hops)
      throw Error("walk conservation violated: started " + std::to_string(s.walkers) + ", finished " +
                  std::to_string(finished) + ", hops " + std::to_string(s.hops) + " vs " + std::to_string(hop_sum));
    return s;
  }

  const DistributedGraph& g_;
  const WalkOptions& o_;
  const IidStep iid_;
  const std::int64_t max_length_ = o_.max_length;
  const double log_keep_ = std::log1p(-o_.p_halt);  // ln(1 - p), for sigma pairs' lengths
  const std::vector<double> compensation_;  // (1/(1-p))^t: the table's factors leave out halting
  const Log& log_;
  const WalkLimits& limits_;
  DepositSink* sink_;  // null: walkers move without depositing
  int p_;
  // Walker and deposit batches, on the exchange's private communicator; the walker count the run ends at.
  BatchedExchange exchange_;
  BatchChannel<Walker> walkers_out_;
  BatchChannel<Deposit> deposits_out_;
  BatchChannel<CongestionNotice> notices_out_;
  BatchChannel<RowRequest> requests_out_;
  BatchChannel<RowGrant> grants_out_;
  const std::int64_t total_walkers_;
  CountedTermination termination_;
  // The arc table (walk_arcs.hpp): the caller's, or built here when it has none for this graph and mode.
  std::optional<WalkArcs> own_table_;
  const HopArc* arcs_ = nullptr;
  const std::int64_t* row_ptr_ = nullptr;
  const double* cumulative_ = nullptr;
  std::int64_t first_ = 0, last_ = 0;            // this rank's nodes (its start rows)
  std::int64_t host_first_ = 0, host_end_ = 0;   // its host's nodes (the arc table's)
  bool replicated_ = false;                       // the table holds the whole graph: walkers never leave the host
  const HostTopology* hosts_ = nullptr;           // when this rank shares its host with others
  std::array<Lane, kLanes> lanes_{};

  std::vector<Walker> queue_;
  std::vector<WalkerDraws> queue_random_;  // beside queue_: the draws a walker from a group already made
  size_t queue_head_ = 0;                  // the walkers before it were taken (first in, first out)
  std::int64_t max_queued_ = 0;
  bool congested_ = false;     // this rank told the others it has too many received walkers waiting
  int congested_peers_ = 0;    // ranks that told this one so: no start node begins while any does
  std::int64_t next_node_ = 0;  // the generation cursor of repelling packs
  std::array<PreparedRow, 16> prepared_{};
  size_t prepared_head_ = 0, prepared_count_ = 0;
  const std::int64_t* start_ids_ = nullptr;   // the host's nodes' original ids (the arc table's): peers' rows
  std::optional<StartRowClaims> claims_;      // when start rows are shared out inside the host
  std::optional<RowRequests> requests_;       // when they are shared out between hosts (a replicated graph)
  Claim claim_;                               // rows being prepared
  bool own_rows_given_ = false;               // without claims: this rank's rows went into claim_
  bool peers_emptied_ = false;                // no peer has rows left to take
  std::int64_t rows_for_peers_ = 0;           // peers' start rows walked here
  StartNodeRoots roots_{o_};
  std::vector<Deposit> incoming_;  // the deposit batch being delivered
  bool record_visits_ = false, repelling_ = false, sigma_pairs_ = false;
  std::vector<std::int64_t> partner_length_;  // sigma packs: second lengths, drawn with their pair's first walker
  std::vector<std::int64_t> endpoint_counts_;
  BlockDistribution teleport_blocks_;              // canonical index -> the rank that resolves a teleport there
  std::vector<std::int64_t> global_of_canonical_;  // the global index of each node of this rank's block
  // Repelling: a FIFO of groups stored contiguously (group g: group_sizes_[g] walkers from group_heads_[g]),
  // processed from next_group_; scratch for one step and for receiving.
  std::vector<Walker> group_walkers_, group_, movers_, inbox_;
  std::vector<size_t> group_heads_;
  std::vector<std::int64_t> group_sizes_, shifts_;  // shifts_: split_pack's scratch
  size_t next_group_ = 0;
  std::vector<WalkerDraws> movers_random_;
  std::vector<std::uint32_t> mover_order_;  // movers sorted by destination (indices into movers_)
  std::vector<Walker> child_;                // one child group's walkers, contiguous

  std::int64_t started_ = 0, finished_ = 0, hops_ = 0, cross_hops_ = 0, dead_ends_ = 0,
               truncated_ = 0, teleports_ = 0;
  std::vector<std::int64_t> histogram_;
  bool all_finished_ = false;
  double last_progress_ = -1e300;
  double busy_seconds_ = 0;  // when this rank last found work (see WalkStatistics::busy_seconds)
  double waiting_seconds_ = 0;  // in rounds that found no work (see WalkStatistics::waiting_seconds)
};

}  // namespace

double walkers_in_flight_bytes(const DistributedGraph& g, const WalkLimits& limits) {
  const double ranks = g.comm->size();
  return (static_cast<double>(limits.max_walkers_in_flight) + 2 * ranks * static_cast<double>(limits.walker_batch)) *
         sizeof(Walker);
}

WalkResult run_walks(const DistributedGraph& g, const WalkOptions& options, const Log& log, const WalkLimits& limits,
                     DepositSink* sink, const WalkArcs* arcs) {
  WalkSimulation simulation(g, options, log, limits, sink, arcs);
  return simulation.run();
}

}  // namespace graphrf
