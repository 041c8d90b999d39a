// graphrf's own HDF5 graphs as input: the /graph CSR group `info --out` writes (anndata/scipy layout: indptr,
// indices, data; rows and columns in canonical order), /nodes/id naming each row and /nodes/name its name
// (string ids) or label (GML). Each rank reads its uniform block of rows with hyperslabs, and one request/reply
// round turns column indices into the original ids of the nodes they point to.
#include <cmath>
#include <numeric>
#include <optional>

#include "graphrf/core/timer.hpp"
#include "graphrf/io/h5_input.hpp"
#include "graphrf/mpi/block_distribution.hpp"
#include "graphrf/mpi/log.hpp"
#include "graphrf/mpi/memory_limit.hpp"
#include "graphrf/mpi/request_reply.hpp"
#include "whole_file_input.hpp"

namespace graphrf::detail {

namespace {

// Bytes per node and per stored entry the loader holds (as for text formats: ids, rows, arcs and mirrors).
constexpr double kLoadBytesPerNode = 64;
constexpr double kLoadBytesPerEntry = 48;

std::uint64_t length_of(const H5Input& file, const std::string& dataset) {
  const auto dims = file.shape(dataset);
  if (dims.size() != 1) throw InputError(file.path() + ": " + dataset + " must be 1-dimensional");
  return dims[0];
}

}  // namespace

ArcInput read_h5_graph(const Communicator& comm, const GraphOptions& options, const std::string& reason) {
  Timer timer;
  const std::string& path = options.graph;
  std::optional<H5Input> file;
  std::int64_t n = 0, entries = 0;
  bool has_ids = false, has_names = false, normalized = false;
  collective_try(comm, [&] {
    file.emplace(path);
    if (!file->has("/graph/indptr") || !file->has("/graph/indices") || !file->has("/graph/data")) {
      const std::string hint = file->has("/points") ? "; it holds /points: read them with --points " + path + " --knn K"
                                                    : " (graphrf info --out FILE writes one)";
      throw InputError(path + ": an HDF5 file without the /graph CSR group (indptr, indices, data)" + hint);
    }
    const std::uint64_t indptr = length_of(*file, "/graph/indptr");
    if (indptr < 2) throw InputError(path + ": /graph/indptr has " + std::to_string(indptr) + " entries: no nodes");
    n = static_cast<std::int64_t>(indptr - 1);
    entries = static_cast<std::int64_t>(length_of(*file, "/graph/indices"));
    if (length_of(*file, "/graph/data") != static_cast<std::uint64_t>(entries))
      throw InputError(path + ": /graph/indices and /graph/data differ in length");
    has_ids = file->has("/nodes/id");
    if (has_ids && length_of(*file, "/nodes/id") != static_cast<std::uint64_t>(n))
      throw InputError(path + ": /nodes/id has " + std::to_string(length_of(*file, "/nodes/id")) + " rows but /graph " +
                       std::to_string(n));
    has_names = file->has("/nodes/name");
    normalized = file->string_attribute("/graph", "weights") == "normalized";
  });
  const double need = (kLoadBytesPerNode * static_cast<double>(n) + kLoadBytesPerEntry * static_cast<double>(entries)) /
                      comm.size();
  check_memory_fits(comm, need, memory_limit_per_rank(comm, options.memory_limit),
                    path + ": /graph has " + std::to_string(n) + " nodes and " + std::to_string(entries) +
                        " entries; loading them");

  const BlockDistribution dist = BlockDistribution::uniform(n, comm.size());
  const std::int64_t first = dist.first(comm.rank()), count = dist.count(comm.rank());
  std::vector<std::int64_t> row_start, column, ids;
  std::vector<double> weight;
  NodeNames names;
  collective_try(comm, [&] {
    row_start = file->read_rows_int64("/graph/indptr", static_cast<std::uint64_t>(first),
                                      static_cast<std::uint64_t>(first + count + 1));
    if (first == 0 && row_start.front() != 0) throw InputError(path + ": /graph/indptr must start at 0");
    for (std::size_t k = 0; k + 1 < row_start.size(); ++k)
      if (row_start[k] > row_start[k + 1]) throw InputError(path + ": /graph/indptr decreases at row " + std::to_string(first + static_cast<std::int64_t>(k)));
    if (row_start.front() < 0 || row_start.back() > entries || (first + count == n && row_start.back() != entries))
      throw InputError(path + ": /graph/indptr does not end at the " + std::to_string(entries) + " entries of /graph/indices");
    const auto begin = static_cast<std::uint64_t>(row_start.front()), end = static_cast<std::uint64_t>(row_start.back());
    column = file->read_rows_int64("/graph/indices", begin, end);
    weight = file->read_rows_double("/graph/data", begin, end);
    for (std::size_t k = 0; k < column.size(); ++k) {
      if (column[k] < 0 || column[k] >= n)
        throw InputError(path + ": /graph/indices entry " + std::to_string(begin + k) + " is column " +
                         std::to_string(column[k]) + ", outside 0.." + std::to_string(n - 1));
      if (options.weight_column == -1) weight[k] = 1.0;
      if (!(weight[k] > 0) || !std::isfinite(weight[k]))
        throw InputError(path + ": /graph/data entry " + std::to_string(begin + k) + " is " + fmt(weight[k], 6) +
                         ": edge weights must be finite and > 0");
    }
    if (has_ids) {
      ids = file->read_rows_int64("/nodes/id", static_cast<std::uint64_t>(first), static_cast<std::uint64_t>(first + count));
    } else {
      ids.resize(static_cast<std::size_t>(count));
      std::iota(ids.begin(), ids.end(), first);
    }
    if (has_names) {
      names = file->read_strings("/nodes/name", static_cast<std::uint64_t>(first),
                                            static_cast<std::uint64_t>(first + count));
    }
  });
  file.reset();
  // Column indices -> the original ids of the rows they name.
  const std::vector<std::int64_t> column_id = request_reply<std::int64_t>(
      comm, std::span<const std::int64_t>(column), [&](std::int64_t c) { return dist.owner(c); },
      [&](std::int64_t c) { return ids[static_cast<std::size_t>(c - first)]; });
  std::vector<std::int64_t>().swap(column);

  ArcInput input;
  std::int64_t self_loops = 0;
  bool weighted = false;
  input.arcs.reserve(column_id.size());
  for (std::int64_t k = 0; k < count; ++k) {
    const auto row = static_cast<std::size_t>(k);
    for (auto j = row_start[row] - row_start.front(); j < row_start[row + 1] - row_start.front(); ++j) {
      const auto at = static_cast<std::size_t>(j);
      weighted = weighted || weight[at] != 1.0;
      if (ids[row] == column_id[at] && !options.keep_self_loops) {
        ++self_loops;
        continue;
      }
      input.arcs.push_back(Arc{ids[row], column_id[at], weight[at]});
    }
  }
  // Names with ids 0..N-1 are string ids (what the loader writes for them); other names are labels.
  bool ids_are_indices = true;
  for (std::int64_t k = 0; k < count; ++k) ids_are_indices = ids_are_indices && ids[static_cast<std::size_t>(k)] == first + k;
  input.nodes_listed = true;
  input.listed_node_ids = std::move(ids);
  input.listed_node_labels = std::move(names);
  LoadReport& report = input.report;
  report.source = path + " as hdf5 (" + reason + ")";
  report.self_loops_dropped = comm.sum(self_loops);
  report.arcs_read = comm.sum(static_cast<std::int64_t>(input.arcs.size())) + report.self_loops_dropped;
  report.weighted = comm.max(weighted ? 1 : 0) == 1;
  report.normalized_graph = normalized && options.weight_column != -1;
  report.string_ids = has_names && comm.min(ids_are_indices ? 1 : 0) == 1;
  report.read_seconds = comm.max(timer.seconds());
  return input;
}

}  // namespace graphrf::detail
