// `graphrf pagerank`: Monte Carlo PageRank from the end points of halting walks, with any coupling, and with
// --reference the exact PageRank by distributed power iteration and the errors.
#include "graphrf/cli/commands.hpp"
#include "graphrf/core/timer.hpp"
#include "graphrf/io/h5_output.hpp"
#include "graphrf/io/report_output.hpp"
#include "graphrf/mpi/run_summary.hpp"
#include "graphrf/walks/pagerank_output.hpp"

namespace graphrf {

void add_directed_option(po::options_description& desc, bool& directed) {
  desc.add_options()
      ("directed", po::bool_switch(&directed),
       "keep arcs as given (u v is the arc u -> v; no symmetrisation); needs --partition block or file:PATH");
}

GraphOptions directed_graph_options_from(const GraphArguments& a, bool directed) {
  GraphOptions o = graph_options_from(a);
  o.directed = directed;
  if (o.directed && (o.partition == "metis" || o.partition == "ptscotch"))
    throw InputError("--partition " + o.partition + ": METIS and PT-Scotch need undirected graphs; with --directed use "
                     "block or file:PATH");
  return o;
}

namespace {

struct PageRankCommandOptions {
  GraphArguments graph;
  bool directed = false;
  WalkOptions walk;  // walkers, p_halt, seed
  std::string step;
  bool drop_self_loops = false;
  std::optional<std::int64_t> max_length;
  CouplingArguments coupling;
  bool reference = false;
  std::optional<std::string> out;
};

void declare_pagerank_options(po::options_description& desc, PageRankCommandOptions& o) {
  add_graph_options(desc, o.graph);
  add_directed_option(desc, o.directed);
  desc.add_options()
      ("walkers,n", po::value(&o.walk.walkers)->default_value(16), "walkers per node")
      ("p-halt", double_value(&o.walk.p_halt, 0.15),
       "teleport probability p (damping 1 - p). P = D_out^-1 A as networkx.pagerank: a self-loop is an out-arc to "
       "its node, nodes without out-arcs teleport uniformly")
      ("step", po::value(&o.step)->default_value("weighted"),
       "weighted: A holds the arc weights (networkx's weight='weight') | uniform: the arc pattern (weight=None)")
      ("drop-self-loops", po::bool_switch(&o.drop_self_loops), "drop self-loops (kept by default, as networkx keeps them)")
      ("max-length", optional_value(&o.max_length), "walks stop after this many hops (default: (1-p)^L < 1e-12)")
      ("seed", po::value(&o.walk.seed)->default_value(1), "random seed (walks depend on it, not on ranks or partitions)");
  add_coupling_options(desc, o.coupling);
  desc.add_options()
      ("reference", po::bool_switch(&o.reference), "also compute the exact PageRank (power iteration to 1e-12 in L1) and the errors")
      ("out", optional_value(&o.out), "HDF5 output: /pagerank/estimate (and /pagerank/exact), canonical node order");
}

int run_pagerank_command(const CommandContext& ctx, PageRankCommandOptions& o) {
  const Communicator& comm = ctx.comm;
  GraphOptions graph_options;
  PageRankRunOptions options;
  std::string out_path;
  options.reference = o.reference;
  collective_try(comm, [&] {
    graph_options = directed_graph_options_from(o.graph, o.directed);
    if (graph_options.keep_self_loops)
      throw InputError("--keep-self-loops: pagerank keeps self-loops by default, as networkx does (--drop-self-loops drops them)");
    graph_options.keep_self_loops = !o.drop_self_loops;
    options.memory_limit = graph_options.memory_limit;
    // Weighted steps only on a graph with weights (decided once it is loaded); validated as uniform till then.
    options.step = parse_step_rule(o.step);
    WalkOptions& walk = options.walk;
    walk.walkers = o.walk.walkers;
    walk.p_halt = o.walk.p_halt;
    walk.seed = o.walk.seed;
    read_coupling_options(o.coupling, walk);
    validate(walk);  // p_halt in (0, 1) before it sets the default length
    walk.max_length = o.max_length ? *o.max_length : pagerank_default_max_length(walk.p_halt);
    validate(walk);
    if (o.out) out_path = *o.out;
  });
  const Log& log = ctx.log;
  Timer total, phase;
  PhaseTimes phases;
  const DistributedGraph g = load_graph_for_command(ctx, o.graph, graph_options, out_path);
  phases.add("load", phase.seconds());
  const PageRankResult result = run_pagerank(g, options, log);
  phases.add("walk", result.walk_phase_seconds);
  if (result.reference) phases.add("reference", result.reference_seconds);
  print_report(log, result.report);

  phase.reset();
  if (!out_path.empty()) {
    H5Output out(comm, out_path);
    out.write_provenance(ctx.command_line, comm.size(), ctx.config_text, options.walk.seed);
    write_pagerank_result(out, g, result);
    out.commit();
    log.info("wrote       " + out_path + " (rows in ascending node id order)");
    phases.add("write", phase.seconds());
  }
  log.info(phases.line(total.seconds()));
  print_run_summary(log, comm, total.seconds());
  return 0;
}

}  // namespace

Command pagerank_command() {
  return make_command<PageRankCommandOptions>(
      "pagerank", "PageRank from the end points of halting walks (any coupling; --directed graphs)",
      declare_pagerank_options, run_pagerank_command);
}

}  // namespace graphrf
