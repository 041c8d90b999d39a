#pragma once
// Node-indexed sparse rows in canonical order held in memory (the Python package's results): this rank's
// block of canonical rows with canonical column indices, each row sorted by column (then by walk length
// when the rows carry one), i.e. the arrays write_node_csr writes, without the file.
#include <cstdint>
#include <span>
#include <vector>

#include "graphrf/graph/canonical_order.hpp"

namespace graphrf {

struct CanonicalRows {
  std::vector<std::int64_t> indptr;   // this rank's canonical block, starting at 0
  std::vector<std::int64_t> indices;  // canonical column indices
  std::vector<double> data;
  std::vector<std::int32_t> length;   // empty unless the input rows carried lengths
};

// `columns` are internal global indices of the local rows `local_indptr`; `length` is empty or one per entry.
// Collective.
CanonicalRows canonical_rows(const CanonicalOrder& order, std::span<const std::int64_t> local_indptr,
                             std::span<const std::int64_t> columns, std::span<const double> data,
                             std::span<const std::int32_t> length = {});

// Per-node values (e.g. original ids) of the local rows -> this rank's canonical block. Collective.
std::vector<std::int64_t> canonical_node_values(const CanonicalOrder& order, std::span<const std::int64_t> local);

}  // namespace graphrf
