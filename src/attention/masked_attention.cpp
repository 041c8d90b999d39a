#include "graphrf/attention/masked_attention.hpp"

#include "host_tables.hpp"

#include "graphrf/attention/row_product.hpp"
#include "graphrf/mpi/reproducible_sum.hpp"

#include <algorithm>
#include <memory>
#include <optional>
#include <span>

#include "graphrf/graph/canonical_order.hpp"
#include "graphrf/mpi/host_exchange.hpp"
#include "graphrf/mpi/host_topology.hpp"
#include "graphrf/mpi/phase_progress.hpp"
#include "graphrf/mpi/row_fetch.hpp"
#include "graphrf/mpi/shared_array.hpp"
#include "graphrf/core/prefetch.hpp"
#include "graphrf/core/timer.hpp"

namespace graphrf {

BadNormalizer parse_bad_normalizer(std::string_view s) {
  if (s == "error") return BadNormalizer::error;
  if (s == "clamp") return BadNormalizer::clamp;
  if (s == "skip") return BadNormalizer::skip;
  throw InputError("attention.normalizer: expected error, clamp or skip (got '" + std::string(s) + "')");
}

namespace {

// out_i = num_i / den_i with the normaliser policy: rows with den <= eps are counted; `clamp` divides by eps
// instead, `skip` (and `error`, which fails the run afterwards) write a zero row.
void normalize_rows(RowMatrix& num, const Eigen::VectorXd& den, const NormalizerPolicy& policy, std::int64_t& bad,
                    double& lowest) {
  bad = 0;
  lowest = INFINITY;
  for (Eigen::Index i = 0; i < num.rows(); ++i) {
    lowest = std::min(lowest, den(i));
    if (den(i) > policy.eps) {
      num.row(i) /= den(i);
      continue;
    }
    ++bad;
    if (policy.action == BadNormalizer::clamp) num.row(i) /= policy.eps;
    else num.row(i).setZero();
  }
}

void throw_if_bad(const NormalizerPolicy& policy, const AttentionStats& stats) {
  if (policy.action == BadNormalizer::error && stats.bad_rows > 0)
    throw InputError(std::to_string(stats.bad_rows) + " rows have an attention normaliser <= " + std::to_string(policy.eps) +
                     " (smallest " + std::to_string(stats.denominator_min) +
                     "): f or the features take negative values; use attention.normalizer clamp|skip, a kernel with "
                     "f >= 0, or positive features");
}

// The policy across ranks: the counts are global, and `error` fails on every rank.
RowMatrix normalize(const Communicator& comm, RowMatrix num, const Eigen::VectorXd& den, const NormalizerPolicy& policy,
                    AttentionStats& stats) {
  std::int64_t bad = 0;
  double lowest = INFINITY;
  normalize_rows(num, den, policy, bad, lowest);
  stats.bad_rows = comm.sum(bad);
  stats.denominator_min = comm.min(lowest);
  collective_try(comm, [&] { throw_if_bad(policy, stats); });
  return num;
}

// normalize() on rows [num_i | den_i] of width dv + 1.
RowMatrix normalize_sums(const Communicator& comm, const std::vector<double>& num_den, std::int64_t dv,
                         const NormalizerPolicy& policy, AttentionStats& stats) {
  const auto n = static_cast<std::int64_t>(num_den.size()) / (dv + 1);
  RowMatrix num(n, dv);
  Eigen::VectorXd den(n);
  for (std::int64_t i = 0; i < n; ++i) {
    std::copy_n(num_den.data() + i * (dv + 1), dv, num.row(i).data());
    den(i) = num_den[static_cast<size_t>(i * (dv + 1) + dv)];
  }
  return normalize(comm, std::move(num), den, policy, stats);
}

// Alg. 2's sums for GRF row i, added to num[0..dv) and den: sum_k g_k phi(q_i).phi(k_col) v_col and
// sum_k g_k phi(q_i).phi(k_col), with q = phi(q_i) and the key-side row of entry k's column found by
// `row_of_entry(k)` (phi(k) then v, side by side).
template <class RowOfEntry>
void asymmetric_row(const std::int64_t* starts, const double* weights, std::int64_t i, const double* q, std::int64_t m,
                    std::int64_t dv, const RowOfEntry& row_of_entry, double* num, double& den) {
  // Four entries at a time: their scores are four independent dot products (each summed in order over a, so
  // the bits are those of one entry at a time), which the processor overlaps instead of waiting on one chain
  // of additions; they then enter the sums in entry order.
  thread_local std::vector<double> acc;  // the row's numerator
  acc.assign(static_cast<size_t>(dv), 0.0);
  double* out = acc.data();
  double sum = 0;
  auto k = starts[i];
  const auto end = starts[i + 1];
  const auto row_bytes = static_cast<std::int64_t>(sizeof(double)) * (m + dv);
  for (; k + 4 <= end; k += 4) {
    for (auto ahead = k + 4; ahead < std::min(k + 8, end); ++ahead)  // the next group's rows, while this one computes
      prefetch_row(row_of_entry(ahead), row_bytes);
    const double* r[4];
    double score[4] = {0, 0, 0, 0};
    for (int e = 0; e < 4; ++e) r[e] = row_of_entry(k + e);
    for (std::int64_t a = 0; a < m; ++a)
      for (int e = 0; e < 4; ++e) score[e] += q[a] * r[e][a];
    for (int e = 0; e < 4; ++e) {
      const double s = score[e] * weights[k + e];
      const double* v = r[e] + m;
      for (std::int64_t t = 0; t < dv; ++t) out[t] += s * v[t];
      sum += s;
    }
  }
  for (; k < end; ++k) {
    const double* row = row_of_entry(k);
    double score = 0;
    for (std::int64_t a = 0; a < m; ++a) score += q[a] * row[a];
    score *= weights[k];
    for (std::int64_t t = 0; t < dv; ++t) out[t] += score * row[m + t];
    sum += score;
  }
  for (std::int64_t t = 0; t < dv; ++t) num[t] += out[t];
  den += sum;
}

// phi(k) and v side by side, one row per node: table row j is input row row_of_node[j] (all rows in input
// order when row_of_node is empty).
std::vector<double> key_value_table(const RowMatrix& phi_k, const RowMatrix& v,
                                    std::span<const std::int64_t> row_of_node = {}) {
  const std::int64_t m = phi_k.cols(), dv = v.cols(), width = m + dv, n = phi_k.rows();
  std::vector<double> table(static_cast<size_t>(n * width));
  for (std::int64_t j = 0; j < n; ++j) {
    const std::int64_t r = row_of_node.empty() ? j : row_of_node[static_cast<size_t>(j)];
    std::copy_n(phi_k.row(r).data(), m, table.data() + j * width);
    std::copy_n(v.row(r).data(), dv, table.data() + j * width + m);
  }
  return table;
}

// Keys of items to fetch: `keys`, sorted and unique (the rows to ask for), and for each item the row of the fetched
// table it reads (-1 for items with nothing to fetch; `slot` is empty when no item has). One sort of (key, item)
// pairs stands in for a binary search of `keys` per lookup: in the query pass as two hosts on random:1000000:10,
// 4M searches of a 500k-column list per rank, about 1 s.
struct FetchSlots {
  std::vector<std::int64_t> keys;
  std::vector<std::int64_t> slot;
  std::int64_t slot_of(std::int64_t item) const { return slot.empty() ? -1 : slot[static_cast<size_t>(item)]; }
};

FetchSlots fetch_slots(std::vector<std::pair<std::int64_t, std::int64_t>> key_item, std::int64_t items) {
  FetchSlots out;
  if (key_item.empty()) return out;
  std::sort(key_item.begin(), key_item.end());
  out.slot.assign(static_cast<size_t>(items), -1);
  for (const auto& [key, item] : key_item) {
    if (out.keys.empty() || out.keys.back() != key) out.keys.push_back(key);
    out.slot[static_cast<size_t>(item)] = static_cast<std::int64_t>(out.keys.size()) - 1;
  }
  return out;
}

// The entries of `rows` whose column `is_remote` picks, keyed by their columns.
template <class IsRemote>
FetchSlots remote_entries(const SparseRows& rows, const IsRemote& is_remote) {
  std::vector<std::pair<std::int64_t, std::int64_t>> remote;  // (column, entry)
  for (size_t k = 0; k < rows.col.size(); ++k)
    if (is_remote(rows.col[k])) remote.emplace_back(rows.col[k], static_cast<std::int64_t>(k));
  return fetch_slots(std::move(remote), static_cast<std::int64_t>(rows.col.size()));
}

// The rows with each row's entries in canonical order of their columns, or nothing when they already are (global
// indices follow canonical order when the parts are runs of it). A row's sums then add the same terms in the same
// order whatever the partition, host size or rank count. Collective.
std::optional<SparseRows> in_canonical_column_order(const DistributedGraph& g, const SparseRows& rows) {
  const CanonicalOrder order(g);
  if (order.internal_is_canonical()) return std::nullopt;
  const std::vector<std::int64_t> canonical = order.to_canonical(rows.col);
  const RowSort sort(rows.indptr, [&](std::int64_t a, std::int64_t b) {
    return canonical[static_cast<size_t>(a)] < canonical[static_cast<size_t>(b)];
  });
  SparseRows out = rows;
  sort.apply(out.col);
  sort.apply(out.value);
  return out;
}

// Whether global node `global` lives on another host (every other rank when there are no hosts).
bool on_other_host(const DistributedGraph& g, std::int64_t global) {
  return !g.owns(global) && (!g.hosts || !g.hosts->same_host(g.owner(global)));
}

// Bytes that travel by message to fetch the rows `needed` of width `width` (rows of my host are shared).
std::int64_t fetched_bytes(const DistributedGraph& g, std::span<const std::int64_t> needed, std::int64_t width) {
  std::int64_t rows = 0;
  for (auto c : needed) rows += on_other_host(g, c);
  return rows * static_cast<std::int64_t>(sizeof(std::int64_t) + static_cast<size_t>(width) * sizeof(double));
}

// A nonzero G_key[j, q] on its way to the owner of column q, with j's canonical index: the order of q's sum.
struct KeyEntry {
  std::int64_t j, j_canonical, q;
  double weight;
};

// A term of a column's sum in the key pass: the row [phi(k_j) | v_j] of the key table where it starts (an index
// into the host's table, the same in every rank of the host) and the weight G_key[j, q].
struct KeyTerm {
  std::int64_t row;
  double weight;
};

// The passes sum kBlock values of a row (of [S | z], or of a numerator) at a time in a local array of fixed size,
// which the compiler keeps in registers. With the whole row in a buffer, every addition went through memory and
// back: at np 1 on random:1000000:10 (m = d_v = 8) the key pass took 1.3-2.2 s and the query pass 1.1-1.35 s,
// against 0.94-1.14 s and 0.66-0.75 s in blocks. Each value still adds its terms in the same order.
constexpr std::int64_t kBlock = 8;

// The terms of one column of the key pass (those of the whole claim end at claim_end) and the key table.
struct KeyColumn {
  const KeyTerm* begin;
  const KeyTerm* end;
  const KeyTerm* claim_end;
  const double* table;
  std::int64_t m, dv;
};

// count values of a column's sum row (count = W when W > 0), each summed over the terms in order: S_q[a, t0 + t] =
// sum_j G_key[j, q] (phi(k_j)_a v_j,t0+t) for a >= 0, or z_q[t0 + t] = sum_j G_key[j, q] phi(k_j)_t0+t for a < 0.
template <std::int64_t W>
void key_block(const KeyColumn& c, std::int64_t a, std::int64_t t0, std::int64_t count, double* out, bool prefetch) {
  const std::int64_t n = W > 0 ? W : count, key_width = c.m + c.dv;
  double acc[kBlock] = {};
  for (const KeyTerm* term = c.begin; term < c.end; ++term) {
    constexpr std::int64_t kTermsAhead = 8;  // phi(k_j), v_j lie anywhere: ask for a later term's row now
    if (prefetch && term + kTermsAhead < c.claim_end)
      prefetch_row(c.table + term[kTermsAhead].row, static_cast<std::int64_t>(sizeof(double)) * key_width);
    const double* pk = c.table + term->row;
    const double weight = term->weight;
    if (a >= 0) {
      const double* vj = pk + c.m + t0;
      for (std::int64_t t = 0; t < n; ++t) acc[t] += weight * (pk[a] * vj[t]);  // S's entry rounded first
    } else {
      for (std::int64_t t = 0; t < n; ++t) acc[t] += weight * pk[t0 + t];
    }
  }
  std::copy_n(acc, n, out);
}

// The key pass of Alg. 1 for the owned columns q, one row of `width` = m dv + m values each: S_q = sum_j
// G_key[j, q] phi(k_j) v_j^T (m x dv, row-major) then z_q = sum_j G_key[j, q] phi(k_j). Each column adds its
// rows j in canonical order, whichever rank owns them: the order one rank uses, so the bits do not depend on
// the rank count, the partition or the hosts. Entries of remote columns go to the column's owner (through
// shared memory inside a host) with j's canonical index, and the owner fetches phi(k_j) and v_j from other hosts.
// Inside a host the columns' sums are shared out like start rows (StartRowClaims): each rank lays out its
// columns' terms in shared memory, takes its own columns a batch at a time, and once they run out sums the
// columns a slower peer has left, into the peer's rows. Which rank sums a column changes nothing in it.
void key_sums(const DistributedGraph& g, const SparseRows& key_grf, const RowMatrix& phi_k, const RowMatrix& v,
              HostRows& sums, AttentionStats& stats) {
  const Communicator& comm = *g.comm;
  const std::int64_t m = phi_k.cols(), dv = v.cols(), n_local = g.n_local(), key_width = m + dv;
  // Entries of remote columns, written straight to their owners (in place in shared memory for host peers); to
  // each owner in row order (rows ascend in canonical order).
  Counts counts(static_cast<size_t>(comm.size()), 0);
  for (auto q : key_grf.col)
    if (!g.owns(q)) ++counts[static_cast<size_t>(g.owner(q))];
  HostExchange<KeyEntry> exchange(comm, g.hosts.get(), counts);
  std::vector<KeyEntry*> next_entry(counts.size());
  for (int r = 0; r < comm.size(); ++r) {
    next_entry[static_cast<size_t>(r)] = exchange.to(r);
    if (exchange.by_message(r)) stats.bytes_moved += counts[static_cast<size_t>(r)] * static_cast<std::int64_t>(sizeof(KeyEntry));
  }
  for (std::int64_t j = 0; j < n_local; ++j)
    for (auto k = key_grf.indptr[static_cast<size_t>(j)]; k < key_grf.indptr[static_cast<size_t>(j) + 1]; ++k) {
      const std::int64_t q = key_grf.col[static_cast<size_t>(k)];
      if (g.owns(q)) continue;
      *next_entry[static_cast<size_t>(g.owner(q))]++ = {g.first() + j, g.canonical_index[static_cast<size_t>(j)], q,
                                                        key_grf.value[static_cast<size_t>(k)]};
    }
  exchange.exchange();
  // The received entries in runs of one row j (a source sends a row's entries together).
  struct Run {
    const KeyEntry* begin;
    const KeyEntry* end;
  };
  std::vector<Run> run;
  for (int source = 0; source < comm.size(); ++source) {
    const std::span<const KeyEntry> from = exchange.from(source);
    for (size_t k = 0; k < from.size(); ++k)
      if (k == 0 || from[k].j != from[k - 1].j) run.push_back({&from[k], &from[k] + 1});
      else run.back().end = &from[k] + 1;
  }
  const auto runs = static_cast<std::int64_t>(run.size());
  const auto row_of_run = [&](std::int64_t r) { return run[static_cast<size_t>(r)].begin->j; };
  // Rows of other hosts, sorted and unique, and the fetched row each run reads.
  const bool sharing = g.hosts && g.hosts->size() > 1;
  const int host_rank = sharing ? g.hosts->host().rank() : 0;
  const int host_first_rank = sharing ? g.hosts->first_rank(g.hosts->index()) : comm.rank();
  std::vector<std::pair<std::int64_t, std::int64_t>> remote_runs;  // (j, run)
  for (std::int64_t r = 0; r < runs; ++r)
    if (on_other_host(g, row_of_run(r))) remote_runs.emplace_back(row_of_run(r), r);
  const FetchSlots fetched_runs = fetch_slots(std::move(remote_runs), runs);
  const std::vector<std::int64_t>& remote = fetched_runs.keys;
  const auto n_remote = static_cast<std::int64_t>(remote.size());

  // The key table: phi(k_j) and v_j side by side, this rank's slice holding its owned rows, then the rows it
  // fetched from other hosts.
  HostSlices<double> keys(g, (n_local + n_remote) * key_width);
  for (std::int64_t j = 0; j < n_local; ++j) {
    std::copy_n(phi_k.row(j).data(), m, keys.mine() + j * key_width);
    std::copy_n(v.row(j).data(), dv, keys.mine() + j * key_width + m);
  }
  fetch_rows(comm, g.hosts, g.dist, remote, std::span<const double>(keys.mine(), static_cast<size_t>(n_local * key_width)),
             key_width, std::span<double>(keys.mine() + n_local * key_width, static_cast<size_t>(n_remote * key_width)));
  stats.bytes_moved += fetched_bytes(g, remote, key_width);
  // Where row j's phi(k_j), v_j start in the host's key table: row < n_local is owned row `row`, else run
  // row - n_local (of a row j of a host peer, or fetched).
  const auto key_row = [&](std::int64_t row) -> std::int64_t {
    const std::int64_t mine = keys.first(host_rank);
    if (row < n_local) return mine + row * key_width;
    const std::int64_t slot = fetched_runs.slot_of(row - n_local);
    if (slot >= 0) return mine + (n_local + slot) * key_width;
    const std::int64_t j = row_of_run(row - n_local);
    const int owner = g.owner(j);
    return keys.first(owner - host_first_rank) + (j - g.dist.first(owner)) * key_width;
  };

  // The rows j in canonical order: owned rows (index < n_local) and runs of received entries of one j.
  std::vector<std::pair<std::int64_t, std::int64_t>> rows;  // (canonical index, row)
  rows.reserve(static_cast<size_t>(n_local + runs));
  for (std::int64_t j = 0; j < n_local; ++j) rows.emplace_back(g.canonical_index[static_cast<size_t>(j)], j);
  for (std::int64_t r = 0; r < runs; ++r) rows.emplace_back(run[static_cast<size_t>(r)].begin->j_canonical, n_local + r);
  if (!std::is_sorted(rows.begin(), rows.end())) std::sort(rows.begin(), rows.end());

  // The owned columns a row adds to, in its order: (column, weight) pairs.
  const auto targets = [&](std::int64_t row, auto&& visit) {
    if (row < n_local) {
      for (auto k = key_grf.indptr[static_cast<size_t>(row)]; k < key_grf.indptr[static_cast<size_t>(row) + 1]; ++k)
        if (g.owns(key_grf.col[static_cast<size_t>(k)])) visit(key_grf.col[static_cast<size_t>(k)], key_grf.value[static_cast<size_t>(k)]);
    } else {
      for (const KeyEntry* e = run[static_cast<size_t>(row - n_local)].begin; e < run[static_cast<size_t>(row - n_local)].end; ++e)
        visit(e->q, e->weight);
    }
  };
  // Each column's terms, grouped by column (a counting sort of the rows' entries, taken in canonical order of the
  // rows, so a column's terms stay in that order). Summing a column at a time keeps its m dv + m sums in cache
  // and reads one short row (phi(k_j), v_j) per term, where adding each row into its columns' sums read and
  // wrote a whole sum row (576 bytes for m = dv = 8) at random per term: the key pass on random:1000000:10 took
  // about 3 s at np 1 that way. The additions are the same, in the same order.
  HostSlices<std::int64_t> column_start(g, n_local + 1);
  std::int64_t* start = column_start.mine();
  std::fill_n(start, n_local + 1, 0);
  for (const auto& row : rows)
    targets(row.second, [&](std::int64_t q, double) { ++start[q - g.first() + 1]; });
  for (std::int64_t q = 0; q < n_local; ++q) start[q + 1] += start[q];
  HostSlices<KeyTerm> terms(g, start[n_local]);
  {
    std::vector<std::int64_t> next(start, start + n_local);
    for (const auto& [canonical, row] : rows) {
      const std::int64_t key = key_row(row);
      targets(row, [&](std::int64_t q, double weight) {
        terms.mine()[next[static_cast<size_t>(q - g.first())]++] = {key, weight};
      });
    }
  }
  keys.publish();
  column_start.publish();
  terms.publish();

  // Columns first .. end - 1 of host rank r, into their rows of `sums`: S_q a block of up to kBlock values of one
  // row a at a time, then z_q likewise (key_block), all reading the column's terms.
  const double* table = keys.data();
  const auto sum_columns = [&](int r, RowRange columns) {
    const std::int64_t* begin = column_start.data() + column_start.first(r);
    const KeyTerm* term_of = terms.data() + terms.first(r);
    const std::int64_t first_node = g.dist.first(host_first_rank + r);
    for (std::int64_t q = columns.begin; q < columns.end; ++q) {
      const KeyColumn column{term_of + begin[q], term_of + begin[q + 1], term_of + begin[columns.end], table, m, dv};
      double* out = sums.host_row(first_node + q);
      bool first = true;  // the first block asks for later terms' rows ahead
      const auto block = [&](std::int64_t a, std::int64_t t0, std::int64_t count, double* to) {
        if (count == kBlock)
          key_block<kBlock>(column, a, t0, count, to, first);
        else
          key_block<0>(column, a, t0, count, to, first);
        first = false;
      };
      for (std::int64_t a = 0; a < m; ++a)
        for (std::int64_t t = 0; t < dv; t += kBlock) block(a, t, std::min(kBlock, dv - t), out + a * dv + t);
      for (std::int64_t a = 0; a < m; a += kBlock) block(-1, a, std::min(kBlock, m - a), out + m * dv + a);
    }
  };
  share_out(g, "attention   key pass", sum_columns, stats.peer_columns);
  sums.publish();
}

// The sums of one row of the query pass read its entries' rows of [S | z]: entries begin .. end - 1 (of `entries`
// in all), their weights, and the row's phi(q_i).
struct QueryRow {
  std::int64_t begin, end, entries;
  const double* weights;
  const double* q;
  std::int64_t m, dv;
};

// Numerator values t0 .. t0 + W - 1 of a query row (W fixed, or dv - t0 of them for W = 0), each summed over the
// entries k and then the features a in order, as out[t] = sum_k sum_a (g_k phi(q)_a) S_k[a, t0 + t]; with `den`,
// also den = sum_k sum_a (g_k phi(q)_a) z_k[a]. The block with `den` comes first and asks for later entries'
// rows ahead; the others find them in cache.
template <std::int64_t W, class RowOfEntry>
void query_block(const QueryRow& row, const RowOfEntry& row_of_entry, std::int64_t t0, double* out, double* den) {
  const std::int64_t m = row.m, dv = row.dv, width = W > 0 ? W : dv - t0;
  const auto row_bytes = static_cast<std::int64_t>(sizeof(double)) * (m * dv + m);
  double acc[kBlock] = {};
  double sum = 0;
  for (auto k = row.begin; k < row.end; ++k) {
    constexpr std::int64_t kEntriesAhead = 8;  // rows lie anywhere in the table: ask for a later entry's now
    if (den && k + kEntriesAhead < row.entries) prefetch_row(row_of_entry(k + kEntriesAhead), row_bytes);
    const double w = row.weights[k];
    const double* sq = row_of_entry(k);
    for (std::int64_t a = 0; a < m; ++a) {
      const double c = w * row.q[a];
      const double* s = sq + a * dv + t0;
      for (std::int64_t t = 0; t < width; ++t) acc[t] += c * s[t];
      if (den) sum += c * sq[m * dv + a];
    }
  }
  std::copy_n(acc, width, out);
  if (den) *den = sum;
}

// The query pass of Alg. 1 for the owned rows i: num_i = sum_k g_k phi(q_i)^T S[col_k] and den_i = sum_k g_k
// phi(q_i)^T z[col_k] over the row's entries in canonical column order. Rows of S and z on this host are read in
// place, those of other hosts fetched once. Inside a host the rows are shared out like the key pass's columns:
// each rank puts its rows' entries (as places in the host's S tables), phi(q_i) and room for the sums in shared
// memory, and sums a slower peer's rows once its own are done. Returns [num_i | den_i] per owned row.
std::vector<double> query_sums(const DistributedGraph& g, const SparseRows& query_grf, const RowMatrix& phi_q, const HostRows& sums,
                               std::int64_t dv, AttentionStats& stats) {
  const Communicator& comm = *g.comm;
  const std::int64_t m = phi_q.cols(), width = m * dv + m, out_width = dv + 1;
  const auto nnz = static_cast<std::int64_t>(query_grf.col.size());
  const int host_rank = g.hosts && g.hosts->size() > 1 ? g.hosts->host().rank() : 0;
  // Rows of other hosts, fetched into this rank's slice of a host table.
  const FetchSlots remote = remote_entries(query_grf, [&](std::int64_t col) { return !sums.on_host(col); });
  HostSlices<double> fetched(g, static_cast<std::int64_t>(remote.keys.size()) * width);
  fetch_rows(comm, g.hosts, g.dist, remote.keys, sums.owned(), width,
             std::span<double>(fetched.mine(), remote.keys.size() * static_cast<size_t>(width)));
  stats.bytes_moved += fetched_bytes(g, remote.keys, width);
  // Where entry k's row of [S | z] starts: place >= 0 in the host's S table (sums), place < 0 at -place - 1 in the
  // host's table of fetched rows.
  HostRowPass pass(g, query_grf, phi_q, out_width);
  const double* host_sums = sums.table();
  for (std::int64_t k = 0; k < nnz; ++k) {
    const std::int64_t slot = remote.slot_of(k);
    pass.places()[k] = slot >= 0 ? -(fetched.first(host_rank) + slot * width) - 1
                                 : sums.row(query_grf.col[static_cast<size_t>(k)]) - host_sums;
  }
  fetched.publish();
  pass.publish();

  const double* fetched_rows = fetched.data();
  const auto sum_row = [&](const HostRowPass::Rows& rows, std::int64_t i) {
    const auto row_of_entry = [&](std::int64_t k) {
      return rows.place[k] >= 0 ? host_sums + rows.place[k] : fetched_rows - rows.place[k] - 1;
    };
    const QueryRow row{rows.starts[i], rows.starts[i + 1], rows.entries, rows.weights, rows.features + i * m, m, dv};
    double* out = rows.out + i * out_width;
    for (std::int64_t t = 0; t < std::max<std::int64_t>(dv, 1); t += kBlock) {  // once at d_v 0: den is in the first
      if (t + kBlock <= dv)
        query_block<kBlock>(row, row_of_entry, t, out + t, t == 0 ? out + dv : nullptr);
      else
        query_block<0>(row, row_of_entry, t, out + t, t == 0 ? out + dv : nullptr);
    }
  };
  return pass.run("attention   query pass", sum_row, stats.peer_rows);
}

}  // namespace

RowMatrix grf_masked_attention(const DistributedGraph& g, const SparseRows& query_grf_in, const SparseRows& key_grf,
                               const RowMatrix& phi_q, const RowMatrix& phi_k, const RowMatrix& v,
                               const NormalizerPolicy& policy, AttentionStats& stats) {
  const Communicator& comm = *g.comm;
  const std::int64_t m = phi_k.cols(), dv = v.cols(), width = m * dv + m;
  Timer timer;
  HostRows sums(g, width);
  key_sums(g, key_grf, phi_k, v, sums, stats);
  stats.key_seconds = comm.max(timer.seconds());
  timer.reset();

  // Query pass.
  const std::optional<SparseRows> reordered = in_canonical_column_order(g, query_grf_in);
  const std::vector<double> num_den = query_sums(g, reordered ? *reordered : query_grf_in, phi_q, sums, dv, stats);
  RowMatrix out_rows = normalize_sums(comm, num_den, dv, policy, stats);
  stats.query_seconds = comm.max(timer.seconds());
  return out_rows;
}

RowMatrix asymmetric_masked_attention(const DistributedGraph& g, const SparseRows& grf_in, const RowMatrix& phi_q,
                                      const RowMatrix& phi_k, const RowMatrix& v, const NormalizerPolicy& policy,
                                      AttentionStats& stats) {
  const Communicator& comm = *g.comm;
  const std::int64_t m = phi_k.cols(), dv = v.cols(), width = m + dv, n_local = g.n_local();
  Timer timer;
  // phi(k_j) and v_j side by side in a host table: this rank's slice holds its owned rows, then the rows of other
  // hosts that its query walks visited; rows of host peers are read in their slices.
  const std::optional<SparseRows> reordered = in_canonical_column_order(g, grf_in);
  const SparseRows& grf = reordered ? *reordered : grf_in;
  const bool sharing = g.hosts && g.hosts->size() > 1;
  const int host_rank = sharing ? g.hosts->host().rank() : 0;
  const int host_first_rank = sharing ? g.hosts->first_rank(g.hosts->index()) : comm.rank();
  const FetchSlots remote = remote_entries(grf, [&](std::int64_t col) { return on_other_host(g, col); });
  const auto n_remote = static_cast<std::int64_t>(remote.keys.size());
  HostSlices<double> keys(g, (n_local + n_remote) * width);
  for (std::int64_t j = 0; j < n_local; ++j) {
    std::copy_n(phi_k.row(j).data(), m, keys.mine() + j * width);
    std::copy_n(v.row(j).data(), dv, keys.mine() + j * width + m);
  }
  fetch_rows(comm, g.hosts, g.dist, remote.keys, std::span<const double>(keys.mine(), static_cast<size_t>(n_local * width)),
             width, std::span<double>(keys.mine() + n_local * width, static_cast<size_t>(n_remote * width)));
  stats.bytes_moved += fetched_bytes(g, remote.keys, width);
  HostRowPass pass(g, grf, phi_q, dv + 1);
  for (std::int64_t k = 0; k < static_cast<std::int64_t>(grf.col.size()); ++k) {
    const std::int64_t slot = remote.slot_of(k), j = grf.col[static_cast<size_t>(k)];
    const int owner = slot >= 0 ? comm.rank() : g.owner(j);
    pass.places()[k] = slot >= 0 ? keys.first(host_rank) + (n_local + slot) * width
                                 : keys.first(owner - host_first_rank) + (j - g.dist.first(owner)) * width;
  }
  keys.publish();
  pass.publish();
  stats.key_seconds = comm.max(timer.seconds());
  timer.reset();
  const double* table = keys.data();
  const auto sum_row = [&](const HostRowPass::Rows& rows, std::int64_t i) {
    const auto lookup = [&](std::int64_t k) { return table + rows.place[k]; };
    double* out = rows.out + i * (dv + 1);
    asymmetric_row(rows.starts, rows.weights, i, rows.features + i * m, m, dv, lookup, out, out[dv]);
  };
  const std::vector<double> num_den = pass.run("attention   query pass (asymmetric)", sum_row, stats.peer_rows);
  RowMatrix out = normalize_sums(comm, num_den, dv, policy, stats);
  stats.query_seconds = comm.max(timer.seconds());
  return out;
}

RowMatrix local_asymmetric_attention(const SparseRows& grf, const RowMatrix& phi_q, const RowMatrix& phi_k,
                                     const RowMatrix& v, std::span<const std::int64_t> row_of_node,
                                     const NormalizerPolicy& policy, AttentionStats& stats) {
  const std::int64_t m = phi_k.cols(), dv = v.cols(), width = m + dv, n = grf.n_local();
  const auto bytes = [](std::int64_t doubles) { return static_cast<std::int64_t>(sizeof(double)) * doubles; };
  // The key table in graph order, so that a walk's neighbours (close in that order) share cache lines.
  const std::vector<double> table = key_value_table(phi_k, v, row_of_node);
  RowMatrix num = RowMatrix::Zero(n, dv);
  Eigen::VectorXd den = Eigen::VectorXd::Zero(n);
  const auto lookup = [&](std::int64_t k) { return table.data() + grf.col[static_cast<size_t>(k)] * width; };
  // Rows are taken in graph order; their query and output rows (point order) are scattered, so each is asked
  // for a few rows ahead.
  constexpr std::int64_t kAhead = 8;
  for (std::int64_t i = 0; i < n; ++i) {
    if (i + kAhead < n) {
      const auto later = row_of_node[static_cast<size_t>(i + kAhead)];
      prefetch_row(phi_q.row(later).data(), bytes(m));
      prefetch_row(num.row(later).data(), bytes(dv));
      __builtin_prefetch(&den(later));
    }
    const auto r = row_of_node[static_cast<size_t>(i)];
    asymmetric_row(grf.indptr.data(), grf.value.data(), i, phi_q.row(r).data(), m, dv, lookup, num.row(r).data(), den(r));
  }
  normalize_rows(num, den, policy, stats.bad_rows, stats.denominator_min);
  throw_if_bad(policy, stats);
  return num;
}

RowMatrix linear_attention(const DistributedGraph& g, const RowMatrix& phi_q, const RowMatrix& phi_k, const RowMatrix& v,
                           const NormalizerPolicy& policy, AttentionStats& stats) {
  const Communicator& comm = *g.comm;
  Timer timer;
  const std::int64_t dv = v.cols();
  Eigen::MatrixXd values_and_ones(v.rows(), dv + 1);
  values_and_ones << v, Eigen::VectorXd::Ones(v.rows());
  const RowBlockReducer reducer(comm, g.n_global(), g.canonical_index);
  const Eigen::MatrixXd sums = reducer.cross(phi_k, values_and_ones);  // [sum_j phi_k(j) v_j^T | sum_j phi_k(j)]
  stats.key_seconds = comm.max(timer.seconds());
  timer.reset();
  const Eigen::MatrixXd num_and_den = row_by_row_product(phi_q, sums.transpose());
  RowMatrix num = num_and_den.leftCols(dv);
  const Eigen::VectorXd den = num_and_den.col(dv);
  RowMatrix out = normalize(comm, std::move(num), den, policy, stats);
  stats.query_seconds = comm.max(timer.seconds());
  return out;
}

}  // namespace graphrf
