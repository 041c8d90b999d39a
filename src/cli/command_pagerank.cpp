// `graphrf pagerank`: Monte Carlo PageRank from the end points of halting walks, with any coupling, and with
// --reference the exact PageRank by distributed power iteration and the errors.
#include "graphrf/cli/cli.hpp"
#include "graphrf/core/timer.hpp"
#include "graphrf/io/h5_output.hpp"
#include "graphrf/io/report_output.hpp"
#include "graphrf/mpi/run_summary.hpp"
#include "graphrf/walks/pagerank_output.hpp"

namespace graphrf {

void add_directed_option(po::options_description& desc) {
  desc.add_options()
      ("directed", po::bool_switch(),
       "keep arcs as given (u v is the arc u -> v; no symmetrisation); needs --partition block or file:PATH");
}

GraphOptions directed_graph_options_from(const po::variables_map& vm) {
  GraphOptions o = graph_options_from(vm);
  o.directed = vm["directed"].as<bool>();
  if (o.directed && (o.partition == "metis" || o.partition == "ptscotch"))
    throw InputError("--partition " + o.partition + ": METIS and PT-Scotch need undirected graphs; with --directed use "
                     "block or file:PATH");
  return o;
}

void add_pagerank_options(po::options_description& desc) {
  add_graph_options(desc);
  add_directed_option(desc);
  desc.add_options()
      ("walkers,n", po::value<std::int64_t>()->default_value(16), "walkers per node")
      ("p-halt", double_value(0.15),
       "teleport probability p (damping 1 - p). P = D_out^-1 A as networkx.pagerank: a self-loop is an out-arc to "
       "its node, nodes without out-arcs teleport uniformly")
      ("step", po::value<std::string>()->default_value("weighted"),
       "weighted: A holds the arc weights (networkx's weight='weight') | uniform: the arc pattern (weight=None)")
      ("drop-self-loops", po::bool_switch(), "drop self-loops (kept by default, as networkx keeps them)")
      ("max-length", po::value<std::int64_t>(), "walks stop after this many hops (default: (1-p)^L < 1e-12)")
      ("seed", po::value<std::uint64_t>()->default_value(1), "random seed (walks depend on it, not on ranks or partitions)");
  add_coupling_options(desc);
  desc.add_options()
      ("reference", po::bool_switch(), "also compute the exact PageRank (power iteration to 1e-12 in L1) and the errors")
      ("out", po::value<std::string>(), "HDF5 output: /pagerank/estimate (and /pagerank/exact), canonical node order");
}

int run_pagerank(const CommandContext& ctx) {
  const Communicator& comm = ctx.comm;
  GraphOptions graph_options;
  PageRankRunOptions options;
  std::string out_path;
  options.reference = ctx.vm["reference"].as<bool>();
  collective_try(comm, [&] {
    graph_options = directed_graph_options_from(ctx.vm);
    if (graph_options.keep_self_loops)
      throw InputError("--keep-self-loops: pagerank keeps self-loops by default, as networkx does (--drop-self-loops drops them)");
    graph_options.keep_self_loops = !ctx.vm["drop-self-loops"].as<bool>();
    // Weighted steps only on a graph with weights (decided once it is loaded); validated as uniform till then.
    options.step = parse_step_rule(ctx.vm["step"].as<std::string>());
    WalkOptions& walk = options.walk;
    walk.walkers = ctx.vm["walkers"].as<std::int64_t>();
    walk.p_halt = ctx.vm["p-halt"].as<double>();
    walk.seed = ctx.vm["seed"].as<std::uint64_t>();
    read_coupling_options(ctx.vm, walk);
    validate(walk);  // p_halt in (0, 1) before it sets the default length
    walk.max_length = ctx.vm.count("max-length") ? ctx.vm["max-length"].as<std::int64_t>()
                                                 : pagerank_default_max_length(walk.p_halt);
    validate(walk);
    if (ctx.vm.count("out")) out_path = ctx.vm["out"].as<std::string>();
  });
  const Log& log = ctx.log;
  Timer total, phase;
  PhaseTimes phases;
  const DistributedGraph g = load_graph_for_command(ctx, graph_options, out_path);
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

}  // namespace graphrf
