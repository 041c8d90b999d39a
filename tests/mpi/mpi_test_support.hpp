#pragma once
// Helpers for MPI tests: a temporary file every rank can read, and the whole graph gathered in canonical
// numbering so that results can be compared across rank counts and partitioners.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include "graphrf/mpi/communicator.hpp"
#include "graphrf/graph/distributed_graph.hpp"
#include "graphrf/mpi/log.hpp"

namespace graphrf::testing {

inline const Communicator& world() {
  static const Communicator comm(MPI_COMM_WORLD);
  return comm;
}

// A log that prints nothing but warnings (tests stay quiet).
inline const Log& quiet_log() {
  static const Log log(world(), true);
  return log;
}

// `graph` (a file or generator spec) loaded on every rank with `partition`.
inline DistributedGraph load(const std::string& graph, const std::string& partition) {
  GraphOptions o;
  o.graph = graph;
  o.partition = partition;
  return load_graph(world(), o);
}

// A file written by rank 0 and visible to every rank; removed on destruction.
class SharedTempFile {
 public:
  SharedTempFile(const std::string& name, const std::string& content) {
    const Communicator& comm = world();
    std::string dir = (std::filesystem::temp_directory_path() / "graphrf-tests").string();
    if (comm.is_root()) {
      std::filesystem::create_directories(dir);
      path_ = dir + "/" + std::to_string(::getpid()) + "-" + name;
      std::ofstream(path_, std::ios::binary) << content;
    }
    comm.broadcast(path_);
    comm.barrier();
  }
  ~SharedTempFile() {
    world().barrier();
    if (world().is_root()) std::remove(path_.c_str());
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A unique path under the shared temp directory (same on every rank), not created.
inline std::string shared_temp_path(const std::string& name) {
  std::string path;
  if (world().is_root()) {
    auto dir = std::filesystem::temp_directory_path() / "graphrf-tests";
    std::filesystem::create_directories(dir);
    path = (dir / (std::to_string(::getpid()) + "-" + name)).string();
  }
  world().broadcast(path);
  return path;
}

struct Triplet {
  std::int64_t row, col;  // original ids
  double value;
  bool operator<(const Triplet& o) const { return std::tie(row, col) < std::tie(o.row, o.col); }
};

// Every stored entry of the distributed matrix (raw or normalised), named by original ids, gathered on
// every rank and sorted. Uses the ghost exchange to learn the original ids of remote neighbours.
inline std::vector<Triplet> gather_entries(const DistributedGraph& g, bool normalized) {
  std::vector<std::int64_t> ghost_ids(g.ghosts.size());
  g.ghost_exchange.exchange<std::int64_t>(g.original_id, ghost_ids);
  std::vector<Triplet> local;
  for (std::int64_t i = 0; i < g.n_local(); ++i)
    for (auto k = g.row_ptr[static_cast<size_t>(i)]; k < g.row_ptr[static_cast<size_t>(i) + 1]; ++k) {
      const auto c = g.col[static_cast<size_t>(k)];
      const auto id = g.owns(c) ? g.original_id[static_cast<size_t>(c - g.first())]
                                : ghost_ids[static_cast<size_t>(g.ghost_slot(c))];
      local.push_back({g.original_id[static_cast<size_t>(i)], id,
                       normalized ? g.normalized_weight[static_cast<size_t>(k)] : g.weight[static_cast<size_t>(k)]});
    }
  const Communicator& comm = *g.comm;
  Counts counts(static_cast<size_t>(comm.size()), static_cast<std::int64_t>(local.size()));
  std::vector<Triplet> send;
  for (int r = 0; r < comm.size(); ++r) send.insert(send.end(), local.begin(), local.end());
  auto all = comm.alltoallv(send, counts);
  std::sort(all.begin(), all.end());
  return all;
}

}  // namespace graphrf::testing
