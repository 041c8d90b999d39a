#include "graphrf/attention/attention_memory.hpp"

#include <algorithm>

#include "graphrf/graph/canonical_order.hpp"
#include "graphrf/grf/grf_memory.hpp"

namespace graphrf {

namespace {

constexpr double kKeyEntryBytes = 32;   // KeyEntry: j, its canonical index, q, the weight
constexpr double kTermBytes = 16;       // a column sum's term: its row of the key table and the weight
constexpr double kPairBytes = 16;       // (key, item) pairs sorted to find fetched rows
constexpr double kRunBytes = 16;        // a run of received entries of one row: where it begins and ends
constexpr double kEntryBytes = 16;      // a GRF entry: column and value

}  // namespace

AttentionMemory estimate_attention_memory(const DistributedGraph& g, const AttentionConfig& config, const AttentionShape& shape) {
  AttentionMemory out;
  const LengthResolvedRows length_resolved =
      config.keep_length_resolved || (config.shared_walks && shape.heads > 1) ? LengthResolvedRows::keep : LengthResolvedRows::drop;
  const GrfMemory grf = estimate_grf_memory(g, config.walk, WalkLimits{}, ensembles(config.estimator), length_resolved);
  out.graph_bytes = grf.graph_bytes + grf.in_flight_bytes;
  const double heads = shape.heads;
  out.grf_bytes = heads * grf.output_bytes;

  const double n = static_cast<double>(g.n_local()), d = shape.d, dv = shape.dv, m = shape.m;
  // Q, K, V; per head phi(q), phi(k), the masked and the linear output.
  out.dense_bytes = 8 * n * heads * (2 * d + dv) + 8 * n * heads * (2 * m + 2 * dv);

  // One ensemble's entries on this rank (what the engine reserves), and the rows that may come from other hosts.
  const double nnz = static_cast<double>(output_entries(g, config.walk, row_entries_bound(config.walk, g.n_global()),
                                                        LengthResolvedRows::drop));
  // A visit t hops out lies on another rank (host) with probability at most about t c (c: the share of arcs that
  // lead there; a union bound over its hops), and visits are t = (1 - p) / p hops out on average. Entries of other
  // ranks' columns travel in the key pass; rows of other hosts are fetched, one per such entry at most and no more
  // than the other hosts' nodes.
  const DistributedGraph::LeavingArcs leaving = g.leaving_arc_shares();
  const double hops = 1.0 + expected_hops_per_walk(config.walk);
  const double other_rank_entries = nnz * std::min(1.0, leaving.other_rank * hops);
  const double remote = std::min(nnz * std::min(1.0, leaving.other_host * hops), static_cast<double>(g.nodes_on_other_hosts()));
  // Rows whose entries are not in canonical column order already are copied in that order first.
  const double reordered = CanonicalOrder(g).internal_is_canonical() ? 0.0 : kEntryBytes * nnz + 8 * n;
  const double lookup = remote > 0 ? kPairBytes * other_rank_entries + 8 * nnz : 0.0;  // remote entries' slots
  const double numerators = 8 * n * (dv + 1);
  double pass = 0;
  // Inside a host of several ranks a row-wise pass copies the rows' starts, weights and phi(q) to shared memory.
  const bool sharing = g.hosts && g.hosts->size() > 1;
  const double shared_rows = sharing ? 8 * nnz + 8 * n * (m + 1) : 0.0;
  if (config.estimator == GrfEstimator::asymmetric) {
    // The key table of owned phi(k), v rows and those fetched from other hosts (as fetched, then in the table), each
    // entry's place in it, and the sums (in the host table, returned, then as num and den).
    const double table = 8 * n * (m + dv);
    pass = table + reordered + lookup + 8 * remote * (1 + 2 * (m + dv)) + 8 * nnz + shared_rows + 3 * numerators;
  } else {
    const double width = m * dv + m, sums = 8 * n * width;
    // Entries sent and as many received (a host peer's are read where they were written) and their runs of one
    // row, the columns' terms (own entries and received ones), the rows in canonical order, the columns' starts,
    // the key table of owned phi(k), v rows, and the rows fetched from other hosts (as fetched, then in the table).
    const double key_pass = sums + (2 * kKeyEntryBytes + kRunBytes) * other_rank_entries + kTermBytes * nnz +
                            kPairBytes * (n + other_rank_entries) + 8 * n + 8 * n * (m + dv) +
                            (kPairBytes + 16 * (m + dv)) * remote;
    // The query pass: each entry's place in the S tables, the shared rows, the rows fetched from other hosts (as
    // fetched, then in the host table), the sums (in the host table, returned, then as num and den).
    const double query_pass = sums + reordered + lookup + 8 * nnz + shared_rows + 8 * remote * (1 + 2 * width) + 3 * numerators;
    pass = std::max(key_pass, query_pass);
  }
  const double features = 8 * n * (2 * d + m);     // a head's copies of q and k, and one map's column-major result
  const double writing = 8 * n * heads * dv * 6;   // the outputs gathered, interleaved and put in canonical order
  out.pass_bytes = std::max({pass, features, writing});
  return out;
}

}  // namespace graphrf
