#pragma once
// GRF rows of a graph held whole by one process (LocalGraph), for the frames path: each rank walks whole
// frames with no messages. The walks are the distributed engine's walks, draw for draw: halting and step
// draws keyed by (seed, start id, walker, step, ensemble) (draw_hop), repelling packs by (start id, the
// pack's lowest walker id, step) (split_pack, as the engine), a pack splitting by destination and never merging, a
// pack of one walker stepping like an i.i.d. walker (its own choice word, as the engine's lanes), loads
// multiplied by W_vu / (P(step v->u) (1 - p)). Each row is summed in walk order into a dense accumulator,
// so it equals the distributed engine's row up to rounding in the last bits (that engine sorts each row's
// visits to sum them in an order independent of message arrival; one process needs no such sort).
//
// A pack of c walkers that followed the same path carries one load: it is walked once and deposited as c
// visits, which is what makes repelling walks cheap here (a 27-walker pack on a 3-NN graph makes about 31
// draws per start node instead of 81).
#include <cstdint>
#include <span>

#include "graphrf/graph/local_graph.hpp"
#include "graphrf/grf/grf_matrix.hpp"
#include "graphrf/walks/walk_options.hpp"

namespace graphrf {

struct LocalWalkStats {
  std::int64_t walkers = 0, hops = 0, truncated = 0, dead_ends = 0;
};

// Throws InputError naming the option for walk options the local path does not take: couplings other than
// iid and repelling, --step weighted, teleports, --start-every.
void check_local_walk_options(const WalkOptions& walk);

// Phi rows (row i = node i of g, columns node indices of g in the order its walks first reached them, not
// sorted): phi_i = (1/n) sum over
// the walks from i of f_t * load at each visit, t = 0 included. `f` has max_length + 1 entries or fewer.
SparseRows local_grf(const LocalGraph& g, const WalkOptions& walk, std::span<const double> f, LocalWalkStats& stats);

}  // namespace graphrf
