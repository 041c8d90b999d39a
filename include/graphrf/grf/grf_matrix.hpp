#pragma once
// Graph random features assembled from walk deposits (Reid et al. 2025a, "Linear transformer topological masking
// with graph random features", Eq. 10). The walks are kept length-resolved, M_t[i, q] = (1/n) * sum of the loads
// of walks from i that are at q after t hops, so that Phi = sum_t f_t M_t can be rebuilt for any modulation f
// without walking again ("walk once, mask many").
// Sums run in a fixed order (by column and hop count, then equal-key loads in ascending order of their bit
// patterns), so the result is bitwise the same whatever order the deposits arrived in, i.e. for any rank count
// and partition.
#include <bit>
#include <cstdint>
#include <span>
#include <vector>

#include "graphrf/walks/deposit_sink.hpp"

namespace graphrf {

inline std::int64_t visit_col(RowVisit v) { return key_col(visit_key(v)); }
inline std::int32_t visit_step(RowVisit v) { return key_step(visit_key(v)); }
inline double visit_load(RowVisit v) { return std::bit_cast<double>(static_cast<std::uint64_t>(v)); }

// Rows = owned start nodes; within a row, entries sorted by (column, length).
struct LengthResolvedGrf {
  std::vector<std::int64_t> indptr;
  std::vector<std::int64_t> col;      // global indices
  std::vector<std::int32_t> length;   // hop count t
  std::vector<double> value;          // M_t[i, q]
  std::int64_t n_local() const { return static_cast<std::int64_t>(indptr.size()) - 1; }
};

// Whether GRF construction keeps M_t (for /grf_by_length, heads sharing walks, GP operators) or builds Phi
// only: M_t takes 20 bytes per entry on top of Phi's 16.
enum class LengthResolvedRows { keep, drop };

// Sparse rows with ascending columns (CSR of this rank's rows).
struct SparseRows {
  std::vector<std::int64_t> indptr;
  std::vector<std::int64_t> col;
  std::vector<double> value;
  std::int64_t n_local() const { return static_cast<std::int64_t>(indptr.size()) - 1; }
};

// Appends the row of start node `global_row` built from all its walks' visits (steps >= 1, any order;
// `visits` is used as scratch and left empty). Step 0 is not deposited by the walk engine: every walker is at its start node
// with load 1 then, so M_0 = I, added here as the exact sum of the n unit loads.
void append_length_resolved_row(LengthResolvedGrf& m, std::vector<RowVisit>& visits, std::int64_t global_row,
                                std::int64_t walkers);

// Appends the row of Phi = sum_t f_t M_t straight from the visits, without keeping M_t: bitwise the row
// append_length_resolved_row then append_combined_row build (`visits` is used as scratch and left empty).
void append_grf_row(SparseRows& phi, std::vector<RowVisit>& visits, std::int64_t global_row, std::int64_t walkers,
                    std::span<const double> f);

// Appends row i of Phi = sum_t f_t M_t (terms beyond f's length count as zero).
void append_combined_row(SparseRows& phi, const LengthResolvedGrf& m, std::int64_t i, std::span<const double> f);

// Phi = sum_t f_t M_t for every row.
SparseRows combine_lengths(const LengthResolvedGrf& m, std::span<const double> f);

}  // namespace graphrf
