#include "graphrf/gp/gp_observations.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <numeric>
#include <unordered_map>

#include "graphrf/core/counter_rng.hpp"
#include "graphrf/core/error.hpp"
#include "graphrf/core/memory_budget.hpp"
#include "graphrf/io/h5_input.hpp"

namespace graphrf {

namespace {

std::vector<std::string_view> fields(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == ',' || line[i] == '\r')) ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != ',' && line[i] != '\r') ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

bool parse_int(std::string_view s, std::int64_t& out) {
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

bool parse_real(std::string_view s, double& out) {
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

bool is_hdf5(const std::string& path) {
  const auto dot = path.rfind('.');
  const std::string ext = dot == std::string::npos ? "" : path.substr(dot);
  return ext == ".h5" || ext == ".hdf5";
}

// Lines of a text file with `columns` fields each (the first line may be a header), parsed by `take`.
template <class Take>
void read_table(const std::string& path, std::size_t columns, const std::string& what, const Take& take) {
  // take(id, fields, line number, "FILE line N")
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot open file");
  std::string line;
  std::int64_t number = 0;
  bool first = true;
  while (std::getline(in, line)) {
    ++number;
    const auto f = fields(line);
    if (f.empty() || f[0][0] == '#') continue;
    std::int64_t id;
    const bool header = first && !parse_int(f[0], id);
    first = false;
    if (header) continue;
    const std::string where = path + " line " + std::to_string(number);
    if (f.size() != columns)
      throw InputError(where + ": expected " + what + " (" + std::to_string(columns) + " fields), got " +
                       std::to_string(f.size()) + " fields");
    if (!parse_int(f[0], id)) throw InputError(where + ": node id '" + std::string(f[0]) + "' is not an integer");
    take(id, f, number, where);
  }
}

void check_duplicates(const ObservationFile& file) {
  std::vector<std::size_t> order(file.id.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return file.id[a] < file.id[b]; });
  std::size_t worst = file.id.size();
  for (std::size_t k = 1; k < order.size(); ++k)
    if (file.id[order[k]] == file.id[order[k - 1]]) worst = std::min(worst, order[k]);
  if (worst < file.id.size())
    throw InputError(file.where(worst) + ": node " + std::to_string(file.id[worst]) + " is listed twice");
}

}  // namespace

std::string ObservationFile::where(std::size_t k) const {
  return hdf5 ? path + " /obs/id[" + std::to_string(line[k]) + "]" : path + " line " + std::to_string(line[k]);
}

ObservationFile read_observations(const std::string& path) {
  ObservationFile file;
  file.path = path;
  if (is_hdf5(path)) {
    const H5Input in(path);
    for (const char* name : {"/obs/id", "/obs/y"})
      if (!in.has(name)) throw InputError(path + ": no dataset " + std::string(name));
    const auto n = in.shape("/obs/id").at(0);
    if (in.shape("/obs/y").at(0) != n)
      throw InputError(path + ": /obs/id has " + std::to_string(n) + " entries but /obs/y has " +
                       std::to_string(in.shape("/obs/y").at(0)));
    if (!in.is_integer("/obs/id")) throw InputError(path + ": /obs/id must hold integers");
    // Every rank reads every entry (id, y, its row): a declared length is refused before it is allocated.
    require_memory(32.0 * static_cast<double>(n), path + ": /obs (" + std::to_string(n) + " entries)");
    file.hdf5 = true;
    file.id = in.read_rows_int64("/obs/id", 0, n);
    file.y = in.read_rows_double("/obs/y", 0, n);
    for (std::uint64_t k = 0; k < n; ++k) {
      file.line.push_back(static_cast<std::int64_t>(k));
      if (!std::isfinite(file.y[k])) throw InputError(path + " /obs/y[" + std::to_string(k) + "]: y is not finite");
    }
  } else {
    read_table(path, 2, "node,y", [&](std::int64_t id, const std::vector<std::string_view>& f, std::int64_t line, const std::string& where) {
      double y;
      if (!parse_real(f[1], y) || !std::isfinite(y))
        throw InputError(where + ": y '" + std::string(f[1]) + "' is not a finite number");
      file.id.push_back(id);
      file.y.push_back(y);
      file.line.push_back(line);
    });
  }
  check_duplicates(file);
  return file;
}

ObservationFile read_id_list(const std::string& path) {
  ObservationFile file;
  file.path = path;
  read_table(path, 1, "one node id", [&](std::int64_t id, const std::vector<std::string_view>&, std::int64_t line, const std::string&) {
    file.id.push_back(id);
    file.line.push_back(line);
  });
  check_duplicates(file);
  return file;
}

namespace {

// Rank 0's file on every rank.
void broadcast_file(const Communicator& comm, ObservationFile& file) {
  comm.broadcast(file.id);
  comm.broadcast(file.y);
  comm.broadcast(file.line);
  comm.broadcast(file.path);
  comm.broadcast(file.hdf5);
}

// Local index of each id owned here, -1 elsewhere; collective InputError naming the first id of no node.
std::vector<std::int64_t> locate(const DistributedGraph& g, const ObservationFile& file) {
  std::unordered_map<std::int64_t, std::int64_t> local_of;
  for (std::int64_t i = 0; i < g.n_local(); ++i) local_of.emplace(g.original_id[static_cast<size_t>(i)], i);
  std::vector<std::int64_t> local(file.id.size(), -1);
  std::vector<std::uint8_t> found(file.id.size(), 0);
  for (std::size_t k = 0; k < file.id.size(); ++k)
    if (auto it = local_of.find(file.id[k]); it != local_of.end()) local[k] = it->second, found[k] = 1;
  found = g.comm->allreduce(found, MPI_MAX);
  std::string problem;
  if (g.comm->is_root())
    for (std::size_t k = 0; k < file.id.size() && problem.empty(); ++k)
      if (!found[k]) problem = file.where(k) + ": node " + std::to_string(file.id[k]) + " is not a node of the graph";
  collective_try(*g.comm, [&] {
    if (!problem.empty()) throw InputError(problem);
  });
  return local;
}

}  // namespace

LocalObservations distribute_observations(const DistributedGraph& g, const std::string& path, const SplitSpec& split) {
  const Communicator& comm = *g.comm;
  ObservationFile obs, tests;
  collective_try(comm, [&] {
    if (!comm.is_root()) return;
    obs = read_observations(path);
    if (!split.test_file.empty()) tests = read_id_list(split.test_file);
  });
  broadcast_file(comm, obs);
  broadcast_file(comm, tests);
  const std::vector<std::int64_t> obs_local = locate(g, obs);
  const std::vector<std::int64_t> test_local = locate(g, tests);

  LocalObservations out;
  out.y = Eigen::VectorXd::Constant(g.n_local(), std::numeric_limits<double>::quiet_NaN());
  out.role.assign(static_cast<size_t>(g.n_local()), static_cast<std::int32_t>(NodeRole::unobserved));
  for (std::size_t k = 0; k < obs.id.size(); ++k) {
    const auto i = obs_local[k];
    if (i < 0) continue;
    out.y(i) = obs.y[k];
    bool test = false;
    if (split.test_file.empty())
      test = unit_uniform(philox_block(split.split_seed, RngDomain::gp_split, static_cast<std::uint64_t>(obs.id[k]))[0]) <
             split.test_fraction;
    out.role[static_cast<size_t>(i)] = static_cast<std::int32_t>(test ? NodeRole::test : NodeRole::train);
  }
  std::string problem;
  for (std::size_t k = 0; k < tests.id.size(); ++k) {
    const auto i = test_local[k];
    if (i < 0) continue;
    if (std::isnan(out.y(i))) {
      if (problem.empty()) problem = tests.where(k) + ": test node " + std::to_string(tests.id[k]) + " has no observation in " + path;
      continue;
    }
    out.role[static_cast<size_t>(i)] = static_cast<std::int32_t>(NodeRole::test);
  }
  collective_try(comm, [&] {
    if (!problem.empty()) throw InputError(problem);
  });
  for (auto r : out.role) {
    out.n_train += r == static_cast<std::int32_t>(NodeRole::train);
    out.n_test += r == static_cast<std::int32_t>(NodeRole::test);
  }
  out.n_train = comm.sum(out.n_train);
  out.n_test = comm.sum(out.n_test);
  collective_try(comm, [&] {
    if (out.n_train == 0) throw InputError(path + ": no training observations left after the test split");
  });
  return out;
}

}  // namespace graphrf
