#include "graphrf/graph/graph_from_edges.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "graphrf/core/timer.hpp"

namespace graphrf {

namespace {

void check_edges(const EdgeArrays& e, std::int64_t num_nodes) {
  if (e.dst.size() != e.src.size())
    throw InputError(e.source + ": src has " + std::to_string(e.src.size()) + " ids but dst has " + std::to_string(e.dst.size()));
  if (!e.weights.empty() && e.weights.size() != e.src.size())
    throw InputError(e.source + ": weights has " + std::to_string(e.weights.size()) + " values for " +
                     std::to_string(e.src.size()) + " edges");
  for (std::size_t k = 0; k < e.src.size(); ++k)
    for (const auto& [name, id] : {std::pair{"src", e.src[k]}, std::pair{"dst", e.dst[k]}})
      if (id < 0 || id >= num_nodes)
        throw InputError(e.source + ": " + name + "[" + std::to_string(k) + "] = " + std::to_string(id) +
                         " is not a node id 0.." + std::to_string(num_nodes - 1));
  for (std::size_t k = 0; k < e.weights.size(); ++k)
    if (!std::isfinite(e.weights[k]) || e.weights[k] <= 0) {
      std::ostringstream value;
      value << e.weights[k];
      throw InputError(e.source + ": weights[" + std::to_string(k) + "] = " + value.str() + " (weights must be finite and > 0)");
    }
}

}  // namespace

DistributedGraph graph_from_edges(const Communicator& comm, const EdgeArrays& edges, const std::string& partition,
                                  int host_size) {
  collective_try(comm, [&] {
    validate_partition_spec(partition);
    if (edges.directed && (partition == "metis" || partition == "ptscotch"))
      throw InputError("--partition " + partition + ": METIS and PT-Scotch need undirected graphs; with --directed use "
                       "block or file:PATH");
  });
  const Timer timer;
  std::int64_t largest = -1;
  for (const std::int64_t id : edges.src) largest = std::max(largest, id);
  for (const std::int64_t id : edges.dst) largest = std::max(largest, id);
  const std::int64_t num_nodes = edges.num_nodes >= 0 ? edges.num_nodes : comm.max(largest) + 1;
  collective_try(comm, [&] {
    if (edges.num_nodes < -1) throw InputError(edges.source + ": num_nodes must be >= 0 (got " + std::to_string(edges.num_nodes) + ")");
    check_edges(edges, num_nodes);
  });

  ArcInput input;
  input.declared_nodes = num_nodes;
  input.id_base = 0;
  std::int64_t loops_dropped = 0;
  input.arcs.reserve(edges.src.size());
  for (std::size_t k = 0; k < edges.src.size(); ++k) {
    const double w = edges.weights.empty() ? 1.0 : edges.weights[k];
    if (edges.src[k] == edges.dst[k] && !edges.keep_self_loops) {
      ++loops_dropped;
      continue;
    }
    input.arcs.push_back(Arc{edges.src[k], edges.dst[k], w});
  }
  LoadReport& report = input.report;
  report.source = edges.source;
  report.self_loops_dropped = comm.sum(loops_dropped);
  report.arcs_read = comm.sum(static_cast<std::int64_t>(edges.src.size()));
  report.declared_nodes = num_nodes;
  report.weighted = comm.max(edges.weights.empty() ? 0 : 1) == 1;
  report.read_seconds = comm.max(timer.seconds());
  CanonicalGraph canonical = assemble_canonical_graph(comm, std::move(input), edges.duplicates, edges.directed);
  return partition_and_distribute(comm, std::move(canonical), partition, host_size);
}

}  // namespace graphrf
