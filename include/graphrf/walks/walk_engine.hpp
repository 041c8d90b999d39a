#pragma once
// Distributed halting random walks (Reid et al. 2025a, "Linear transformer topological masking with graph random
// features", §3.3). n walkers start at every node; a walker is simulated by the rank that started it and hops
// there through every node of that rank's host (the ranks sharing its memory, which share the arc table:
// walk_arcs.hpp) until it halts, hits max_length or a dead end, or steps onto another host's node; then it joins
// a per-destination batch for that host: to the rank owning its start node when that is on the host (the walker
// comes home), else to the rank owning its node, which walks it through its host in turn. With every rank its own
// host (--host-size 1) this is the message path between ranks. Batches leave with non-blocking sends when full
// or when the rank runs out of local work; receives are polled between work items; there is no per-step barrier.
// Every visit deposits the walker's running load: straight into its start row's buffer on the rank that started
// it, or, from another host, in batches to the owner of the walk's start node, handed to its DepositSink there
// and followed by a completion record (the walker's hop count) when the walker ends away from home. Walker and
// deposit batches also leave when the rank runs out of work or every 5 ms, so that rows complete and release
// their memory.
//
// When the whole run is one host of several ranks, start rows are shared out for balance (start_row_claims.hpp):
// a rank that has run out of its own start rows takes the back half of a peer's unstarted ones, walks them (no
// walker ever leaves a single host) and puts their visits into the sink the caller gives it for that peer's rows
// (DepositSink::peer_rows), or none when walkers only move. Sinks that cannot hand rows back (builds_peer_rows()
// false), endpoint deposits, repelling packs and --start-every keep fixed ranges. With a replicated graph (every
// host's table holds the whole graph, walk_arcs.hpp) no walker leaves any host either, and ranks share out start
// rows between hosts the same way, by request and answer (row_requests.hpp).
//
// The load is the importance weight of Eq. 10 there: after t hops, w~(walk) / p(walk prefix), the product
// over its hops u -> v of W_uv / P(that hop | the walk so far), i.e. of W_uv deg(u) / (1 - p) for a uniform
// step (halting is tested before every hop). Walkers carry the product of the W_uv deg(u) factors (the arc
// table's) and the (1/(1 - p))^t part is applied when a visit is deposited (halting_compensation).
//
// Batches travel through a BatchedExchange (mpi/batched_exchange.hpp). Termination is counted
// (mpi/counted_termination.hpp): walker counts only grow and are bounded by N*n, so once a sum of per-rank
// finished counts equals N*n every walker has finished, however stale the individual contributions were; the
// same non-blocking reductions carry the hop counts of the progress line. This costs one small collective
// per idle period rather than one per step, and needs no token ring. Deposit batches still in flight are
// then drained (one all-to-all of message counts).
//
// Flow control between hosts: received walkers wait in a first-in, first-out queue, and a rank whose queue
// passes the cap on walkers in flight (WalkLimits::max_walkers_in_flight) tells the ranks of other hosts, which
// start no walker until it has worked its queue down to half the cap. Without it a slower rank's queue grew with
// the walkers the others started (millions), far past the memory estimate's cap. (Repelling groups received from
// other hosts wait in the group queue, which this does not count.)
//
// Repelling couplings move walkers in groups instead of lanes. The n walkers of a start node begin as one
// group; at every step the rank owning the group's node deposits, draws each walker's termination, spreads
// the survivors over the neighbours (split_pack), and splits them into child groups by destination
// node. A child group on another rank travels as one unit of its walker batch (a header record, then its
// walkers). Walkers of one group at one node always move together; two groups of a pack that meet at the
// same node on the same step stay separate groups (merging them would need the whole pack synchronised
// across ranks, and would make the result depend on arrival order). A group's draws are keyed by (seed, start
// id, its lowest walker id, step, ensemble), so the split tree and every draw are the same at any rank count
// and partition, and each walker is marginally a simple random walk (offsets are uniform per walker).
// Groups never merge, so a group of one walker stays alone for the rest of its walk; it leaves the group
// queue for the lanes and moves like an i.i.d. walker (its neighbour from its own choice word: the repelling
// rule for c = 1 is one uniform pick, the same law), at the lanes' speed.
#include <cstdint>
#include <vector>

#include "graphrf/graph/distributed_graph.hpp"
#include "graphrf/mpi/log.hpp"
#include "graphrf/walks/deposit_sink.hpp"
#include "graphrf/walks/walk_arcs.hpp"
#include "graphrf/walks/walk_options.hpp"

namespace graphrf {

struct WalkStatistics {
  std::int64_t walkers = 0;            // started (global)
  std::int64_t hops = 0;               // global
  std::int64_t dead_ends = 0;          // walks stopped at a node without neighbours
  std::int64_t teleports = 0;          // hops from a dangling node to a uniform node (teleport_dangling)
  std::int64_t truncated = 0;          // walks stopped by max_length
  std::vector<std::int64_t> length_histogram;  // walks by number of hops, 0..max_length (global)
  std::int64_t cross_rank_hops = 0;    // hops onto another host's node (global; with every rank its own host,
                                       // another rank's)
  std::int64_t rows_walked_by_peers = 0;  // start rows walked by a rank of their host other than their owner (global)
  // This rank's traffic and time.
  std::int64_t messages_sent = 0, bytes_sent = 0;
  double walk_seconds = 0;
  double busy_seconds = 0;  // until this rank's last step of work (walking, building rows); then it waited for others
  double waiting_seconds = 0;  // in scheduling rounds with nothing to do, mid-run too (walkers or rows held elsewhere)
  std::int64_t max_queued = 0;  // the most walkers received from other hosts that waited here for a lane at once
};

struct WalkLimits {
  std::int64_t max_walkers_in_flight = 1 << 18;   // local queue + outgoing walker batches
  std::int64_t walker_batch = 4096;               // walkers per message
  std::int64_t deposit_batch = 8192;              // deposits per message
  double progress_seconds = 2.0;                  // rank-0 progress line interval (0: never)
  // With a sink: deposit only each walk's last node (load 1, step = its length, length 0 included) and no
  // completion records (sigma learning's PageRank target).
  bool deposit_endpoints = false;
  bool count_endpoints = false;    // count walks ending at each owned node (PageRank)
  // With a GRF sink: the entries this rank's rows are expected to hold, to size its output (0: one per
  // expected visit, far too many when walks revisit a small neighbourhood).
  std::int64_t output_entries = 0;
  // On one host of several ranks, a rank takes a peer's unstarted start rows only when at least twice this many
  // are left (a hand-over costs a sink and a message of built rows; the owner walks a hundred rows in tens of
  // microseconds).
  std::int64_t min_shared_rows = 64;
  // A rank walks at most this share of its own row count in peers' rows, whose output it holds until the walks
  // end (the memory estimate counts them: grf_memory.hpp).
  double max_peer_row_share = 0.5;
};

// Bytes of walkers in flight on a rank at most: the cap on its queue and, per destination rank, a batch being
// filled and one being sent.
double walkers_in_flight_bytes(const DistributedGraph& g, const WalkLimits& limits);

struct WalkResult {
  std::vector<std::int64_t> endpoint_counts;  // per owned node, with limits.count_endpoints
  // This rank's start rows from here on were walked by peers on its host (with a sink, their rows built there:
  // DepositSink::peer_rows); n_local when none were.
  std::int64_t own_rows_end = 0;
  WalkStatistics stats;
};

// Visits of walks started at owned nodes go to `sink`; without one walkers only move (the benchmark's
// walk phase). `arcs`: a table built for this graph to share between runs (one is built here when it is
// null or serves another graph or walk mode).
WalkResult run_walks(const DistributedGraph& g, const WalkOptions& options, const Log& log, const WalkLimits& limits = {},
                     DepositSink* sink = nullptr, const WalkArcs* arcs = nullptr);

}  // namespace graphrf
