#include "graphrf/gp/gp_observations.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <numeric>
#include <sstream>
#include <unordered_map>

#include "graphrf/core/counter_rng.hpp"
#include "graphrf/core/error.hpp"
#include "graphrf/graph/node_lookup.hpp"
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

// Observations are squared and summed (residuals, likelihood, CG norms): beyond this magnitude the sums
// overflow and learning turns the hyperparameters into NaN.
constexpr double kMaxAbsObservation = 1e100;

std::string too_large(double y) {
  std::ostringstream text;
  text << "y = " << y << " is too large (|y| <= 1e100: squares and sums of y must stay finite); rescale the observations";
  return text.str();
}

std::string describe_shape(const std::vector<std::uint64_t>& dims) {
  std::string out;
  for (const auto d : dims) out += (out.empty() ? "" : " x ") + std::to_string(d);
  return out.empty() ? "a scalar" : out;
}

bool is_hdf5(const std::string& path) {
  const auto dot = path.rfind('.');
  const std::string ext = dot == std::string::npos ? "" : path.substr(dot);
  return ext == ".h5" || ext == ".hdf5";
}

// Lines of a text file with `columns` fields each (the first line may be a header), parsed by `take`. By name,
// ids are not parsed (id 0 is passed) and a first line is a header when its y column is not a number.
template <class Take>
void read_table(const std::string& path, std::size_t columns, const std::string& what, bool by_name, const Take& take) {
  // take(id, fields, line number, "FILE line N")
  std::ifstream in(path);
  if (!in) throw FileError(path + ": cannot open file");
  std::string line;
  std::int64_t number = 0;
  bool first = true;
  while (std::getline(in, line)) {
    ++number;
    const auto f = fields(line);
    if (f.empty() || f[0][0] == '#') continue;
    std::int64_t id = 0;
    double y = 0;
    const bool header = first && (by_name ? columns >= 2 && f.size() >= 2 && !parse_real(f[1], y) : !parse_int(f[0], id));
    first = false;
    if (header) continue;
    const std::string where = path + " line " + std::to_string(number);
    if (f.size() != columns)
      throw InputError(where + ": expected " + what + " (" + std::to_string(columns) + " fields), got " +
                       std::to_string(f.size()) + " fields");
    if (!by_name && !parse_int(f[0], id))
      throw InputError(where + ": node id '" + std::string(f[0]) + "' is not an integer");
    take(id, f, number, where);
  }
}

void check_duplicates(const ObservationFile& file) {
  const std::size_t n = file.by_name ? file.name.size() : file.id.size();
  const auto same = [&](std::size_t a, std::size_t b) { return file.by_name ? file.name[a] == file.name[b] : file.id[a] == file.id[b]; };
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](auto a, auto b) { return file.by_name ? file.name[a] < file.name[b] : file.id[a] < file.id[b]; });
  std::size_t worst = n;
  for (std::size_t k = 1; k < order.size(); ++k)
    if (same(order[k], order[k - 1])) worst = std::min(worst, order[k]);
  if (worst < n) throw InputError(file.where(worst) + ": node " + file.label(worst) + " is listed twice");
}

}  // namespace

std::string ObservationFile::where(std::size_t k) const {
  return hdf5 ? path + " " + id_dataset + "[" + std::to_string(line[k]) + "]" : path + " line " + std::to_string(line[k]);
}

std::string ObservationFile::label(std::size_t k) const {
  return by_name ? "'" + std::string(name[k]) + "'" : std::to_string(id[k]);
}

ObservationFile read_observations(const std::string& path, bool by_name) {
  ObservationFile file;
  file.path = path;
  file.by_name = by_name;
  if (is_hdf5(path)) {
    const H5Input in(path);
    if (by_name && in.has("/obs/name")) file.id_dataset = "/obs/name";  // names as strings
    for (const std::string& name : {file.id_dataset, std::string("/obs/y")})
      if (!in.has(name)) throw InputError(path + ": no dataset " + name);
    for (const std::string& name : {file.id_dataset, std::string("/obs/y")}) {
      if (name == "/obs/name") continue;  // strings: string_count checks the rank
      if (const auto dims = in.shape(name); dims.size() != 1)
        throw InputError(path + ": " + name + " has " + std::to_string(dims.size()) + " dimensions (" + describe_shape(dims) +
                         "); expected one value per observation (1-D)");
    }
    const auto n = file.id_dataset == "/obs/name" ? in.string_count("/obs/name") : in.shape("/obs/id").at(0);
    if (in.shape("/obs/y").at(0) != n)
      throw InputError(path + ": " + file.id_dataset + " has " + std::to_string(n) + " entries but /obs/y has " +
                       std::to_string(in.shape("/obs/y").at(0)));
    // Every rank reads every entry (id, y, its row): a declared length is refused before it is allocated.
    require_memory(32.0 * static_cast<double>(n), path + ": /obs (" + std::to_string(n) + " entries)");
    file.hdf5 = true;
    if (file.id_dataset == "/obs/name") {
      file.name = in.read_strings("/obs/name", 0, n);
      file.id.assign(n, 0);
    } else {
      if (!in.is_integer("/obs/id")) throw InputError(path + ": /obs/id must hold integers");
      file.id = in.read_rows_int64("/obs/id", 0, n);
    }
    file.y = in.read_rows_double("/obs/y", 0, n);
    for (std::uint64_t k = 0; k < n; ++k) {
      file.line.push_back(static_cast<std::int64_t>(k));
      if (!std::isfinite(file.y[k])) throw InputError(path + " /obs/y[" + std::to_string(k) + "]: y is not finite");
      if (std::abs(file.y[k]) > kMaxAbsObservation)
        throw InputError(path + " /obs/y[" + std::to_string(k) + "]: " + too_large(file.y[k]));
    }
  } else {
    read_table(path, 2, "node,y", by_name, [&](std::int64_t id, const std::vector<std::string_view>& f, std::int64_t line, const std::string& where) {
      double y;
      if (!parse_real(f[1], y) || !std::isfinite(y))
        throw InputError(where + ": y '" + std::string(f[1]) + "' is not a finite number");
      if (std::abs(y) > kMaxAbsObservation) throw InputError(where + ": " + too_large(y));
      file.id.push_back(id);
      if (by_name) file.name.push_back(f[0]);
      file.y.push_back(y);
      file.line.push_back(line);
    });
  }
  if (by_name && file.hdf5 && file.name.empty()) {
    for (std::int64_t id : file.id) file.name.push_back(std::to_string(id));  // /obs/id 2 names the node "2"
  }
  check_duplicates(file);
  return file;
}

ObservationFile read_id_list(const std::string& path, bool by_name) {
  ObservationFile file;
  file.path = path;
  file.by_name = by_name;
  file.first_may_be_header = by_name;
  read_table(path, 1, "one node id", by_name, [&](std::int64_t id, const std::vector<std::string_view>& f, std::int64_t line, const std::string&) {
    file.id.push_back(id);
    if (by_name) file.name.push_back(f[0]);
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
  comm.broadcast(file.id_dataset);
  comm.broadcast(file.by_name);
  comm.broadcast(file.first_may_be_header);
  std::string bytes = file.name.bytes();
  std::vector<std::int64_t> lengths = file.name.lengths();
  comm.broadcast(bytes);
  comm.broadcast(lengths);
  file.name = NodeNames::from_lengths(bytes, lengths);
}

// Graphs with string ids: each name in the file becomes its node's index (the graph's /nodes/id), so the
// rest matches ids as for any graph. Rank 0 asks, every rank gets the answers; collective InputError naming
// the first name of no node.
void match_names(const DistributedGraph& g, ObservationFile& file) {
  if (!file.by_name) return;
  const Communicator& comm = *g.comm;
  std::vector<std::int64_t> index = find_named_nodes(g, comm.is_root() ? file.name : NodeNames());
  comm.broadcast(index);
  std::size_t skip = 0;
  if (file.first_may_be_header && !index.empty() && index[0] < 0) skip = 1;  // a header line, such as "node"
  std::string problem;
  for (std::size_t k = skip; k < index.size() && problem.empty(); ++k)
    if (index[k] < 0) problem = file.where(k) + ": node " + file.label(k) + " is not a node of the graph";
  collective_try(comm, [&] {
    if (!problem.empty()) throw InputError(problem);
  });
  file.id.assign(index.begin() + static_cast<std::ptrdiff_t>(skip), index.end());
  file.line.erase(file.line.begin(), file.line.begin() + static_cast<std::ptrdiff_t>(skip));
  if (!file.y.empty()) file.y.erase(file.y.begin(), file.y.begin() + static_cast<std::ptrdiff_t>(skip));
  NodeNames kept;
  for (std::size_t k = skip; k < file.name.size(); ++k) kept.push_back(file.name[k]);
  file.name = std::move(kept);
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
      if (!found[k]) problem = file.where(k) + ": node " + file.label(k) + " is not a node of the graph";
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
    obs = read_observations(path, nodes_are_named(g));
    if (!split.test_file.empty()) tests = read_id_list(split.test_file, nodes_are_named(g));
  });
  broadcast_file(comm, obs);
  broadcast_file(comm, tests);
  match_names(g, obs);
  match_names(g, tests);
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
      if (problem.empty()) problem = tests.where(k) + ": test node " + tests.label(k) + " has no observation in " + path;
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
