#pragma once
// Node observations for GP regression and their train/test split.
//   CSV: a header line, then `node,y` per line (comma, tab or space separated; `#` comment lines skipped).
//   HDF5 (.h5, .hdf5): datasets /obs/id (integers) and /obs/y.
// Ids are the graph's original node ids; in a graph read with string ids they are node names (`2` is the node
// named "2"; HDF5: /obs/name strings, else /obs/id written as decimals). An id that is not a node, a repeated
// id or a non-finite y is an error naming the file and line (or dataset index). Test sets: a file of ids
// (one per line, optional header: with names, a first line naming no node), each
// of which must be observed; or a random share q of the observations, chosen per node id by a keyed draw
// (seed, id), so the split does not depend on the ranks.
#include <Eigen/Dense>
#include <cstdint>
#include <string>
#include <vector>

#include "graphrf/graph/distributed_graph.hpp"

namespace graphrf {

struct ObservationFile {
  std::vector<std::int64_t> id;    // by name: the node's index once matched (distribute_observations)
  NodeNames name;                  // by name: each id as written
  bool by_name = false;
  bool first_may_be_header = false;  // by name, id lists: entry 0 is a header if it names no node
  std::vector<double> y;
  std::vector<std::int64_t> line;  // text: 1-based line number; HDF5: index in /obs/id
  std::string path;
  bool hdf5 = false;
  std::string id_dataset = "/obs/id";  // HDF5: the dataset the ids come from
  std::string where(std::size_t k) const;  // "FILE line N" or "FILE /obs/id[k]", for messages
  std::string label(std::size_t k) const;  // the id as the user wrote it: 17, or 'name' by name
};

// Reads the whole file (call on one rank). InputError naming the file and line on bad content. by_name: ids
// are kept as names (the graph has string ids); a first line whose y is not a number is a header.
ObservationFile read_observations(const std::string& path, bool by_name = false);
// Ids, one per line; a first line that is not an integer is a header (by name: see first_may_be_header).
ObservationFile read_id_list(const std::string& path, bool by_name = false);

enum class NodeRole : std::int32_t { train = 0, test = 1, unobserved = 2 };

// Per local node: observed value (NaN where unobserved) and role.
struct LocalObservations {
  Eigen::VectorXd y;
  std::vector<std::int32_t> role;
  std::int64_t n_train = 0, n_test = 0;  // over all ranks
};

struct SplitSpec {
  std::string test_file;        // ids of test nodes, or empty
  double test_fraction = 0;     // used without test_file
  std::uint64_t split_seed = 1;
};

// Collective: rank 0 reads the files, every rank keeps its own nodes. Collective InputError on bad input.
LocalObservations distribute_observations(const DistributedGraph& g, const std::string& path, const SplitSpec& split);

}  // namespace graphrf
