#pragma once
// What the tests of the library runs share: a silent log, a small grid loaded on one process, a report's keys.
#include <string>
#include <vector>

#include "graphrf/core/report.hpp"
#include "graphrf/graph/distributed_graph.hpp"
#include "graphrf/io/graph_options.hpp"
#include "graphrf/mpi/log.hpp"

namespace graphrf::testing_support {

inline const Log& silent() {
  static const Log log(true, true, false, stdout);
  return log;
}

inline DistributedGraph grid(const Communicator& comm) {
  GraphOptions o;
  o.graph = "grid:6x7";
  return load_graph(comm, o);
}

inline std::vector<std::string> keys(const Report& r) {
  std::vector<std::string> k;
  for (const auto& f : r.figures()) k.push_back(f.key);
  return k;
}

}  // namespace graphrf::testing_support
