#include "graphrf/graph/canonical_rows.hpp"

namespace graphrf {

CanonicalRows canonical_rows(const CanonicalOrder& order, std::span<const std::int64_t> local_indptr,
                             std::span<const std::int64_t> columns, std::span<const double> data,
                             std::span<const std::int32_t> length) {
  const bool with_length = !length.empty();
  const RaggedRoute route(order, local_indptr);
  CanonicalRows out;
  out.indptr = route.block_indptr();
  out.indices = route.move<std::int64_t>(order.to_canonical<std::int64_t>(columns));
  out.data = route.move(data);
  if (with_length) out.length = route.move(length);
  // Ties keep their input order (stable), as in the files: entries sorted by column, then length.
  const RowSort sort(out.indptr, [&](std::int64_t a, std::int64_t b) {
    const auto i = static_cast<std::size_t>(a), j = static_cast<std::size_t>(b);
    if (out.indices[i] != out.indices[j]) return out.indices[i] < out.indices[j];
    return with_length && out.length[i] < out.length[j];
  });
  sort.apply(out.indices);
  sort.apply(out.data);
  if (with_length) sort.apply(out.length);
  return out;
}

std::vector<std::int64_t> canonical_node_values(const CanonicalOrder& order, std::span<const std::int64_t> local) {
  return order.route_rows(local, 1);
}

}  // namespace graphrf
