// `graphrf bench-output`: three ways to write the same GRF matrix, timed on the same walks.
//   route      the writer graphrf uses (graph/canonical_order): rows go to uniform canonical blocks by one
//              all-to-all per array, then every rank writes one contiguous block;
//   hyperslab  no rows move: every rank writes its rows where they belong in canonical order, through HDF5
//              hyperslab unions (one run per stretch of consecutive canonical rows it owns); the row offsets
//              need a prefix sum over canonical order (row lengths to the block owners and back);
//   partition  the writer before canonical order: rows in internal order, grouped by rank (not canonical; the
//              cost floor of a collective write of these bytes).
// The route and hyperslab files are compared entry by entry. Every figure is the slowest rank's.
#include <unistd.h>

#include <filesystem>

#include "graphrf/cli/commands.hpp"
#include "graphrf/core/timer.hpp"
#include "graphrf/graph/canonical_order.hpp"
#include "graphrf/grf/grf_pipeline.hpp"
#include "graphrf/io/h5_input.hpp"
#include "graphrf/io/h5_output.hpp"
#include "graphrf/mpi/request_reply.hpp"

namespace graphrf {

namespace {

struct BenchOutputOptions {
  GraphArguments graph;
  KernelArguments kernel;
  WalkArguments walk;
  int repeats = 3;
  std::int64_t max_runs = 5000;
  std::optional<std::string> workdir;
};

void declare_bench_output_options(po::options_description& desc, BenchOutputOptions& o) {
  add_graph_options(desc, o.graph);
  add_kernel_options(desc, o.kernel);
  add_walk_options(desc, o.walk);
  desc.add_options()
      ("repeats", po::value(&o.repeats)->default_value(3), "writes of each kind (the best time is reported)")
      ("max-runs", po::value(&o.max_runs)->default_value(5000),
       "skip the hyperslab writer when a rank has more runs than this (HDF5 builds unions in quadratic time: "
       "5k runs per rank took 1.6 s, 20k 40 s, 500k over 10 minutes)")
      ("workdir", optional_value(&o.workdir), "folder of the files written (default: the system's temporary folder)");
}

using Run = std::pair<std::uint64_t, std::uint64_t>;  // (first element, count)

// Row offsets in the canonical CSR of this rank's rows (internal order), and the total number of entries.
std::vector<std::int64_t> canonical_row_offsets(const DistributedGraph& g, const CanonicalOrder& order,
                                                const std::vector<std::int64_t>& local_indptr, std::int64_t& total) {
  const Communicator& comm = *g.comm;
  std::vector<std::int64_t> lengths(static_cast<std::size_t>(g.n_local()));
  for (std::size_t i = 0; i < lengths.size(); ++i) lengths[i] = local_indptr[i + 1] - local_indptr[i];
  // Lengths in canonical block order, their prefix sums, then each rank asks for its rows' offsets.
  const std::vector<std::int64_t> block = order.route_rows(std::span<const std::int64_t>(lengths), 1);
  std::int64_t running = 0;
  for (auto v : block) running += v;
  std::int64_t base = comm.exscan_sum(running);
  total = comm.sum(running);
  std::vector<std::int64_t> block_offset(block.size());
  for (std::size_t k = 0; k < block.size(); ++k) {
    block_offset[k] = base;
    base += block[k];
  }
  const std::int64_t first = order.blocks().first(comm.rank());
  return request_reply<std::int64_t>(
      comm, std::span<const std::int64_t>(g.canonical_index), [&](std::int64_t c) { return order.blocks().owner(c); },
      [&](std::int64_t c) { return block_offset[static_cast<std::size_t>(c - first)]; });
}

// The CSR of `phi` written through hyperslab unions: no row moves.
void write_csr_by_runs(H5Output& out, const DistributedGraph& g, const CanonicalOrder& order, const SparseRows& phi) {
  for (std::size_t i = 1; i < g.canonical_index.size(); ++i)
    if (g.canonical_index[i] <= g.canonical_index[i - 1])
      throw Error("bench-output: a rank's rows are not in ascending canonical order; the run writer needs them so");
  std::int64_t total = 0;
  const std::vector<std::int64_t> offset = canonical_row_offsets(g, order, phi.indptr, total);
  // Columns in canonical numbering, sorted within rows (values follow).
  std::vector<std::int64_t> indices = order.to_canonical(phi.col);
  std::vector<double> values = phi.value;
  const RowSort sort(phi.indptr, [&](std::int64_t a, std::int64_t b) {
    return indices[static_cast<std::size_t>(a)] < indices[static_cast<std::size_t>(b)];
  });
  sort.apply(indices);
  sort.apply(values);
  // Runs of consecutive canonical rows: rows [c, c + m) in indptr, their entries in indices and data.
  std::vector<Run> row_runs, entry_runs;
  std::vector<std::int64_t> indptr_values;
  const std::int64_t n = g.n_global();
  for (std::size_t i = 0; i < g.canonical_index.size(); ++i) {
    const auto c = static_cast<std::uint64_t>(g.canonical_index[i]);
    const auto length = static_cast<std::uint64_t>(phi.indptr[i + 1] - phi.indptr[i]);
    if (!row_runs.empty() && row_runs.back().first + row_runs.back().second == c) {
      ++row_runs.back().second;
      entry_runs.back().second += length;
    } else {
      row_runs.push_back({c, 1});
      entry_runs.push_back({static_cast<std::uint64_t>(offset[i]), length});
    }
    indptr_values.push_back(offset[i]);
    if (static_cast<std::int64_t>(c) == n - 1) {  // the closing entry belongs to the last row's run
      ++row_runs.back().second;
      indptr_values.push_back(total);
    }
  }
  out.create_rows<std::int64_t>("/grf/indptr", {static_cast<std::uint64_t>(n + 1)});
  out.create_rows<std::int64_t>("/grf/indices", {static_cast<std::uint64_t>(total)});
  out.create_rows<double>("/grf/data", {static_cast<std::uint64_t>(total)});
  out.write_runs<std::int64_t>("/grf/indptr", row_runs, indptr_values);
  out.write_runs<std::int64_t>("/grf/indices", entry_runs, indices);
  out.write_runs<double>("/grf/data", entry_runs, values);
}

struct Timing {
  double best = 1e300;
  void add(double s) { best = std::min(best, s); }
};

// Entries of /grf in both files equal, compared block by block (each rank reads its own block).
bool same_grf(const Communicator& comm, const std::string& a, const std::string& b) {
  const H5Input fa(a), fb(b);
  bool same = true;
  for (const char* name : {"/grf/indptr", "/grf/indices", "/grf/data"}) {
    const auto n = fa.shape(name).at(0);
    if (fb.shape(name).at(0) != n) {
      same = false;
      continue;
    }
    const BlockDistribution blocks = BlockDistribution::uniform(static_cast<std::int64_t>(n), comm.size());
    const auto begin = static_cast<std::uint64_t>(blocks.first(comm.rank()));
    const auto end = begin + static_cast<std::uint64_t>(blocks.count(comm.rank()));
    same = same && fa.read_rows_double(name, begin, end) == fb.read_rows_double(name, begin, end);
  }
  return comm.min(same ? 1 : 0) == 1;
}

int run_bench_output(const CommandContext& ctx, BenchOutputOptions& o) {
  const Communicator& comm = ctx.comm;
  const Log& log = ctx.log;
  GraphOptions graph_options;
  KernelSpec kernel;
  WalkOptions walk;
  int repeats = 3;
  std::string dir = std::filesystem::temp_directory_path().string();
  collective_try(comm, [&] {
    graph_options = graph_options_from(o.graph);
    kernel = kernel_spec_from(o.kernel, o.walk.weights);
    walk = walk_options_from(o.walk);
    repeats = o.repeats;
    if (repeats < 1) throw InputError("--repeats: at least 1 (got " + std::to_string(repeats) + ")");
    if (o.workdir) dir = *o.workdir;
    // Checked before the walks: the files are created after them.
    if (!std::filesystem::is_directory(dir)) throw InputError("--workdir " + dir + ": not a directory");
  });
  const DistributedGraph g = load_graph_for_command(ctx, o.graph, graph_options, "");
  bind_walk_weights(log, g, walk, kernel);
  // The files written hold the GRF values: say what they are of (the kernel and walk options change only them).
  log.info("grf         " + describe(kernel) + "; " + std::to_string(walk.walkers) + " walkers per node, weights " +
           weight_mode_name(walk.weights) + (walk.weights == WeightMode::raw ? " x " + fmt(walk.scale, 6) : ""));
  const GrfRun run = compute_grf(g, kernel, walk, GrfEstimator::symmetric, log);
  const SparseRows& phi = run.phi[0];
  const double entries = static_cast<double>(comm.sum(static_cast<std::int64_t>(phi.col.size())));
  // What the files hold, in one figure (the graph, kernel and walk options change the values, not the layout).
  double value_sum = 0;
  for (const double v : phi.value) value_sum += v;
  value_sum = comm.sum(value_sum);
  const double mb = (entries * 16 + 8.0 * static_cast<double>(g.n_global() + 1)) / 1e6;
  std::string stem = dir + "/graphrf-bench-output-" + std::to_string(::getpid());
  comm.broadcast(stem);
  const std::string route_path = stem + "-route.h5", runs_path = stem + "-hyperslab.h5", plain_path = stem + "-partition.h5";

  // Runs of consecutive canonical rows per rank: the size of the hyperslab writer's selections.
  std::int64_t runs_per_rank = 0;
  for (std::size_t i = 0; i < g.canonical_index.size(); ++i)
    if (i == 0 || g.canonical_index[i] != g.canonical_index[i - 1] + 1) ++runs_per_rank;
  runs_per_rank = comm.max(runs_per_rank);
  const bool with_runs = runs_per_rank <= o.max_runs;

  Timing route, runs, plain;
  for (int r = 0; r < repeats; ++r) {
    {
      comm.barrier();
      Timer t;
      H5Output out(comm, route_path);
      write_node_csr(out, CanonicalOrder(g), "/grf", phi.indptr, phi.col, phi.value);
      out.commit();
      route.add(comm.max(t.seconds()));
    }
    if (with_runs) {
      comm.barrier();
      Timer t;
      H5Output out(comm, runs_path);
      write_csr_by_runs(out, g, CanonicalOrder(g), phi);
      out.commit();
      runs.add(comm.max(t.seconds()));
    }
    {
      comm.barrier();
      Timer t;
      H5Output out(comm, plain_path);
      out.write_csr("/grf", g.n_global(), phi.indptr, phi.col, phi.value);
      out.commit();
      plain.add(comm.max(t.seconds()));
    }
  }
  const bool same = !with_runs || same_grf(comm, route_path, runs_path);
  if (comm.is_root()) {
    std::filesystem::remove(route_path);
    std::filesystem::remove(runs_path);
    std::filesystem::remove(plain_path);
  }
  log.info("bench-output " + graph_options.graph + ", " + std::to_string(comm.size()) + " ranks, " +
           fmt(entries / 1e6, 2) + "M entries (" + fmt(mb, 1) + " MB of /grf), best of " + std::to_string(repeats));
  log.info("  route (canonical, graphrf's writer)   " + fmt(route.best, 3) + " s");
  log.info("  hyperslab (canonical, " + std::to_string(runs_per_rank) + " runs per rank)  " +
           (with_runs ? fmt(runs.best, 3) + " s" : std::string("skipped (more than --max-runs)")));
  log.info("  partition order (not canonical)       " + fmt(plain.best, 3) + " s");
  if (with_runs) log.info("  route and hyperslab files " + std::string(same ? "identical" : "DIFFER"));
  log.result("ranks=" + std::to_string(comm.size()) + " entries=" + fmt(entries, 0) + " value_sum=" + fmt(value_sum, 10) +
             " route_seconds=" + fmt(route.best, 4) +
             " hyperslab_seconds=" + (with_runs ? fmt(runs.best, 4) : std::string("nan")) +
             " partition_order_seconds=" + fmt(plain.best, 4) +
             " runs_per_rank=" + std::to_string(runs_per_rank) + " identical=" + (same ? "1" : "0"));
  return same ? 0 : 1;
}

}  // namespace

Command bench_output_command() {
  return make_command<BenchOutputOptions>(
      "bench-output", "benchmark: the canonical-order writer against hyperslab unions and the partition-order writer",
      declare_bench_output_options, run_bench_output);
}

}  // namespace graphrf
