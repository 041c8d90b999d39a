#include "graphrf/attention/qkv.hpp"

#include <cmath>
#include <limits>
#include <optional>
#include <unordered_map>

#include "graphrf/core/counter_rng.hpp"
#include "graphrf/graph/node_lookup.hpp"
#include "graphrf/core/memory_budget.hpp"
#include "graphrf/io/h5_input.hpp"

namespace graphrf {

QkvRows synthetic_qkv_for_ids(std::span<const std::int64_t> ids, int heads, int d, int dv, std::uint64_t seed) {
  QkvRows out;
  out.heads = heads;
  out.d = d;
  out.dv = dv;
  const auto n = static_cast<Eigen::Index>(ids.size());
  for (int h = 0; h < heads; ++h) {
    RowMatrix mats[3] = {RowMatrix(n, d), RowMatrix(n, d), RowMatrix(n, dv)};
    for (Eigen::Index i = 0; i < n; ++i) {
      const auto id = static_cast<std::uint64_t>(ids[static_cast<size_t>(i)]);
      for (int which = 0; which < 3; ++which)
        for (Eigen::Index c = 0; c < mats[which].cols(); c += 2) {
          const auto w = philox_block(seed, RngDomain::synthetic_data, id, static_cast<std::uint64_t>(h),
                                      static_cast<std::uint64_t>(which), static_cast<std::uint64_t>(c));
          const auto [z0, z1] = standard_normal_pair(w[0], w[1]);
          mats[which](i, c) = z0;
          if (c + 1 < mats[which].cols()) mats[which](i, c + 1) = z1;
        }
    }
    out.q.push_back(std::move(mats[0]));
    out.k.push_back(std::move(mats[1]));
    out.v.push_back(std::move(mats[2]));
  }
  return out;
}

QkvRows synthetic_qkv(const DistributedGraph& g, int heads, int d, int dv, std::uint64_t seed) {
  return synthetic_qkv_for_ids(g.original_id, heads, d, dv, seed);
}

namespace {

// Which rank keeps the directory entry of a key (an id or a canonical index).
int directory_rank(std::int64_t key, int ranks) {
  auto x = static_cast<std::uint64_t>(key) + 0x9e3779b97f4a7c15ULL;  // splitmix64 finaliser
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return static_cast<int>((x ^ (x >> 31)) % static_cast<std::uint64_t>(ranks));
}

struct Shape {
  std::uint64_t rows = 0;
  int heads = 1, width = 0;
};

Shape qkv_shape(const H5Input& in, const std::string& name) {
  const auto s = in.shape(name);
  // Heads and widths are ints: a larger declared size is named as declared, never cut to 32 bits.
  const auto narrow = [&](std::uint64_t size, const char* what) {
    if (size > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
      throw InputError(in.path() + ": " + name + " declares " + what + " " + std::to_string(size) + " (at most 2^31 - 1)");
    return static_cast<int>(size);
  };
  if (s.size() == 2) return {s[0], 1, narrow(s[1], "a width of")};
  if (s.size() == 3) return {s[0], narrow(s[1], "heads:"), narrow(s[2], "a width of")};
  throw InputError(in.path() + ": " + name + " must have shape N x d or N x H x d (has " + std::to_string(s.size()) +
                   " dimensions)");
}

std::string shape_text(const std::vector<std::uint64_t>& shape) {
  std::string out;
  for (std::size_t k = 0; k < shape.size(); ++k) out += (k ? " x " : "") + std::to_string(shape[k]);
  return out;
}

}  // namespace

std::string qkv_transpose_hint(const std::string& name, const std::vector<std::uint64_t>& shape, std::int64_t nodes) {
  if (shape.size() < 2 || nodes < 1 || shape[0] == static_cast<std::uint64_t>(nodes) ||
      shape.back() != static_cast<std::uint64_t>(nodes))
    return "";
  std::vector<std::uint64_t> turned(shape.rbegin(), shape.rend());
  return "; " + name + " (" + shape_text(shape) + ") looks transposed: the graph has " + std::to_string(nodes) +
         " nodes, so store it as " + shape_text(turned) + " (one row per node)";
}

QkvRows read_qkv(const DistributedGraph& g, const std::string& path) {
  const Communicator& comm = *g.comm;
  const int p = comm.size();
  Shape sq, sk, sv;
  bool has_ids = false, has_names = false;
  NodeNames row_names;                // graphs with string ids: the node name of each of this rank's rows
  std::uint64_t first_row = 0;        // file row of this rank's first row
  std::vector<double> rows;           // this rank's block of file rows, q|k|v side by side
  std::vector<std::int64_t> keys;     // the node id (or canonical index) of each of those rows
  std::uint64_t width = 0;
  collective_try(comm, [&] {
    const H5Input in(path);
    sq = qkv_shape(in, "/q");
    sk = qkv_shape(in, "/k");
    sv = qkv_shape(in, "/v");
    const auto hints = [&] {
      std::string out;
      for (const char* name : {"/q", "/k", "/v"}) out += qkv_transpose_hint(name, in.shape(name), g.n_global());
      return out;
    };
    if (sq.rows != sk.rows || sq.rows != sv.rows)
      throw InputError(path + ": /q, /k and /v have " + std::to_string(sq.rows) + ", " + std::to_string(sk.rows) + " and " +
                       std::to_string(sv.rows) + " rows; they must match" + hints());
    if (sq.heads != sk.heads || sq.heads != sv.heads || sq.width != sk.width)
      throw InputError(path + ": /q and /k must have the same heads and dimension, and /v the same heads (q " +
                       std::to_string(sq.heads) + "x" + std::to_string(sq.width) + ", k " + std::to_string(sk.heads) +
                       "x" + std::to_string(sk.width) + ", v " + std::to_string(sv.heads) + "x" +
                       std::to_string(sv.width) + ")");
    if (sq.width < 1 || sv.width < 1)
      throw InputError(path + ": /q, /k and /v need at least one column (d = " + std::to_string(sq.width) +
                       ", d_v = " + std::to_string(sv.width) + ")");
    if (static_cast<std::int64_t>(sq.rows) != g.n_global())
      throw InputError(path + ": /q has " + std::to_string(sq.rows) + " rows but the graph has " +
                       std::to_string(g.n_global()) + " nodes" + hints());
    has_names = nodes_are_named(g) && in.has("/nodes/name");
    has_ids = has_names || in.has("/nodes/id");
    const std::uint64_t begin = sq.rows * static_cast<std::uint64_t>(comm.rank()) / static_cast<std::uint64_t>(p);
    const std::uint64_t end = sq.rows * static_cast<std::uint64_t>(comm.rank() + 1) / static_cast<std::uint64_t>(p);
    first_row = begin;
    // /q, /k, /v as read, then side by side: refused before reading when a declared width cannot fit.
    require_memory(16.0 * static_cast<double>(end - begin) * (2.0 * sq.heads * sq.width + sv.heads * sv.width),
                   path + ": /q, /k and /v (" + std::to_string(end - begin) + " rows on this rank of " +
                       std::to_string(2 * sq.heads * sq.width + sv.heads * sv.width) + " values)");
    const auto q = in.read_rows_double("/q", begin, end);
    const auto k = in.read_rows_double("/k", begin, end);
    const auto v = in.read_rows_double("/v", begin, end);
    const std::uint64_t wq = static_cast<std::uint64_t>(sq.heads * sq.width), wv = static_cast<std::uint64_t>(sv.heads * sv.width);
    width = 2 * wq + wv;
    rows.resize((end - begin) * width);
    for (std::uint64_t r = 0; r < end - begin; ++r) {
      std::copy(q.begin() + static_cast<std::ptrdiff_t>(r * wq), q.begin() + static_cast<std::ptrdiff_t>((r + 1) * wq), rows.begin() + static_cast<std::ptrdiff_t>(r * width));
      std::copy(k.begin() + static_cast<std::ptrdiff_t>(r * wq), k.begin() + static_cast<std::ptrdiff_t>((r + 1) * wq), rows.begin() + static_cast<std::ptrdiff_t>(r * width + wq));
      std::copy(v.begin() + static_cast<std::ptrdiff_t>(r * wv), v.begin() + static_cast<std::ptrdiff_t>((r + 1) * wv), rows.begin() + static_cast<std::ptrdiff_t>(r * width + 2 * wq));
    }
    for (std::uint64_t r = 0; r < end - begin; ++r)
      for (std::uint64_t c = 0; c < width; ++c)
        if (!std::isfinite(rows[r * width + c])) {
          const char* name = c < wq ? "/q" : c < 2 * wq ? "/k" : "/v";
          throw InputError(path + ": " + name + " row " + std::to_string(begin + r) + " has a NaN or infinite entry");
        }
    if (has_names) {
      if (in.string_count("/nodes/name") != sq.rows)
        throw InputError(path + ": /nodes/name must have one entry per row of /q (" + std::to_string(sq.rows) + ")");
      row_names = in.read_strings("/nodes/name", begin, end);
    } else if (has_ids) {
      const auto ids = in.shape("/nodes/id");
      if (!in.is_integer("/nodes/id"))
        throw InputError(path + ": /nodes/id must hold integer node ids (it has another type)");
      if (ids.size() != 1 || ids[0] != sq.rows)
        throw InputError(path + ": /nodes/id must have one entry per row of /q (" + std::to_string(sq.rows) + ")");
      keys = in.read_rows_int64("/nodes/id", begin, end);
      if (nodes_are_named(g))
        for (std::int64_t id : keys) row_names.push_back(std::to_string(id));  // /nodes/id 2 names the node "2"
    } else {
      for (std::uint64_t r = begin; r < end; ++r) keys.push_back(static_cast<std::int64_t>(r));
    }
  });

  // Graphs with string ids: a row's id is a node name, matched by name; its key is then the node's index
  // (the graph's original id for string ids).
  const bool by_name = has_ids && nodes_are_named(g);
  if (by_name) {
    keys = find_named_nodes(g, row_names);
    std::optional<std::size_t> unknown;
    for (std::size_t r = 0; r < keys.size() && !unknown; ++r)
      if (keys[r] < 0) unknown = r;
    collective_try(comm, [&] {
      if (unknown)
        throw InputError(path + ": " + (has_names ? "/nodes/name" : "/nodes/id") + "[" + std::to_string(first_row + *unknown) +
                         "] '" + std::string(row_names[*unknown]) + "' is not the name of a node of the graph");
    });
  }

  // Directory: key -> global index, held by directory_rank(key).
  std::vector<std::int64_t> entries;  // pairs (key, global)
  Counts counts(static_cast<size_t>(p), 0);
  {
    std::vector<std::vector<std::int64_t>> by_rank(static_cast<size_t>(p));
    for (std::int64_t i = 0; i < g.n_local(); ++i) {
      const std::int64_t key = has_ids ? g.original_id[static_cast<size_t>(i)] : g.canonical_index[static_cast<size_t>(i)];
      auto& b = by_rank[static_cast<size_t>(directory_rank(key, p))];
      b.push_back(key);
      b.push_back(g.first() + i);
    }
    for (int r = 0; r < p; ++r) {
      counts[static_cast<size_t>(r)] = static_cast<std::int64_t>(by_rank[static_cast<size_t>(r)].size());
      entries.insert(entries.end(), by_rank[static_cast<size_t>(r)].begin(), by_rank[static_cast<size_t>(r)].end());
    }
  }
  const auto directory_pairs = comm.alltoallv(entries, counts);
  std::unordered_map<std::int64_t, std::int64_t> directory;
  for (size_t k = 0; k + 1 < directory_pairs.size(); k += 2) directory[directory_pairs[k]] = directory_pairs[k + 1];

  // Rows travel to the directory rank (which knows the owner), then to the owner.
  auto route = [&](const std::vector<std::int64_t>& row_keys, const std::vector<double>& payload, auto rank_of) {
    std::vector<std::vector<size_t>> by_rank(static_cast<size_t>(p));
    for (size_t r = 0; r < row_keys.size(); ++r) by_rank[static_cast<size_t>(rank_of(row_keys[r]))].push_back(r);
    Counts kc(static_cast<size_t>(p), 0), vc(static_cast<size_t>(p), 0);
    std::vector<std::int64_t> ks;
    std::vector<double> vs;
    for (int dest = 0; dest < p; ++dest)
      for (auto r : by_rank[static_cast<size_t>(dest)]) {
        ++kc[static_cast<size_t>(dest)];
        vc[static_cast<size_t>(dest)] += static_cast<std::int64_t>(width);
        ks.push_back(row_keys[r]);
        vs.insert(vs.end(), payload.begin() + static_cast<std::ptrdiff_t>(r * width),
                  payload.begin() + static_cast<std::ptrdiff_t>((r + 1) * width));
      }
    return std::make_pair(comm.alltoallv(ks, kc), comm.alltoallv(vs, vc));
  };
  auto [at_directory_keys, at_directory_rows] = route(keys, rows, [&](std::int64_t key) { return directory_rank(key, p); });
  std::vector<std::int64_t> globals(at_directory_keys.size(), -1);
  std::optional<std::int64_t> unknown_key;  // any id may be unknown, negative ones included
  for (size_t r = 0; r < globals.size(); ++r) {
    auto it = directory.find(at_directory_keys[r]);
    if (it == directory.end()) unknown_key = at_directory_keys[r];
    else globals[r] = it->second;
  }
  collective_try(comm, [&] {
    if (unknown_key)
      throw InputError(path + ": " + (has_ids ? "/nodes/id " : "row ") + std::to_string(*unknown_key) +
                       (has_ids ? " is not a node of the graph" : " has no node"));
  });
  auto [owned_globals, owned_rows] = route(globals, at_directory_rows, [&](std::int64_t global) { return g.owner(global); });

  QkvRows out;
  out.row_order = !has_ids ? "rows in canonical node order (no /nodes/id): row i is the node of index i, nodes by " +
                                 std::string(nodes_are_named(g) ? "name in byte order" : "ascending id")
                  : has_names ? std::string("rows matched to nodes by /nodes/name")
                  : by_name   ? std::string("rows matched to nodes by /nodes/id, read as node names")
                              : std::string("rows matched to nodes by /nodes/id");
  out.heads = sq.heads;
  out.d = sq.width;
  out.dv = sv.width;
  const std::int64_t n = g.n_local();
  std::vector<int> seen(static_cast<size_t>(n), 0);
  for (int h = 0; h < out.heads; ++h) {
    out.q.emplace_back(n, out.d);
    out.k.emplace_back(n, out.d);
    out.v.emplace_back(n, out.dv);
  }
  const std::int64_t wq = static_cast<std::int64_t>(out.heads) * out.d;
  for (size_t r = 0; r < owned_globals.size(); ++r) {
    const auto i = owned_globals[r] - g.first();
    ++seen[static_cast<size_t>(i)];
    const double* row = owned_rows.data() + static_cast<std::int64_t>(r) * static_cast<std::int64_t>(width);
    for (int h = 0; h < out.heads; ++h) {
      for (int c = 0; c < out.d; ++c) {
        out.q[static_cast<size_t>(h)](i, c) = row[h * out.d + c];
        out.k[static_cast<size_t>(h)](i, c) = row[wq + h * out.d + c];
      }
      for (int c = 0; c < out.dv; ++c) out.v[static_cast<size_t>(h)](i, c) = row[2 * wq + h * out.dv + c];
    }
  }
  collective_try(comm, [&] {
    for (std::int64_t i = 0; i < n; ++i)
      if (seen[static_cast<size_t>(i)] != 1)
        throw InputError(path + ": node " + (by_name ? "index " : "id ") + std::to_string(g.original_id[static_cast<size_t>(i)]) +
                         " has " + std::to_string(seen[static_cast<size_t>(i)]) + " rows in " +
                         (has_names ? "/nodes/name" : "/nodes/id") + " (expected exactly one)");
  });
  return out;
}

}  // namespace graphrf
