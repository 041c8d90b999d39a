// `graphrf pagerank`: Monte Carlo PageRank from the end points of halting walks, with any coupling, and with
// --reference the exact PageRank by distributed power iteration and the errors.
#include <cstdio>
#include <sstream>

#include "graphrf/cli/cli.hpp"
#include "graphrf/core/timer.hpp"
#include "graphrf/graph/canonical_order.hpp"
#include "graphrf/graph/graph_output.hpp"
#include "graphrf/io/h5_output.hpp"
#include "graphrf/mpi/run_summary.hpp"
#include "graphrf/walks/pagerank.hpp"

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
  WalkOptions walk;
  StepRule step = StepRule::weighted;
  std::string out_path;
  const bool reference = ctx.vm["reference"].as<bool>();
  collective_try(comm, [&] {
    graph_options = directed_graph_options_from(ctx.vm);
    if (graph_options.keep_self_loops)
      throw InputError("--keep-self-loops: pagerank keeps self-loops by default, as networkx does (--drop-self-loops drops them)");
    graph_options.keep_self_loops = !ctx.vm["drop-self-loops"].as<bool>();
    // Weighted steps only on a graph with weights (decided once it is loaded); validated as uniform till then.
    step = parse_step_rule(ctx.vm["step"].as<std::string>());
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
  phase.reset();
  // What the loader changed decides which PageRank this is (networkx reads the file as given).
  const auto adjustments = g.report.adjustments(g.n_edges_global);
  if (adjustments.empty()) log.info("loader      no adjustments");
  for (const auto& a : adjustments) log.info("loader      " + a);
  // Weighted and uniform steps are the same walk on a graph whose weights are all 1: take the uniform one.
  const bool weighted = step == StepRule::weighted && has_arc_weights(g);
  if (weighted) walk.step = StepRule::weighted;
  collective_try(comm, [&] {
    if (weighted && is_repelling(walk.coupling))
      throw InputError("--coupling " + std::string(coupling_name(walk.coupling)) + ": repelling walkers spread over neighbours "
                       "uniformly, but the graph has arc weights; use --step uniform (weights ignored) or a coupling without repelling");
  });
  log.info("pagerank    damping " + fmt(1 - walk.p_halt, 3) + ", " + std::to_string(walk.walkers) + " walkers per node, coupling " +
           coupling_name(walk.coupling) + ", max-length " + std::to_string(walk.max_length) + ", P = D_out^-1 A on " +
           (weighted ? "the arc weights" : "the arc pattern") + (g.report.directed ? " (directed)" : " (symmetrised)"));
  const PageRankEstimate estimate = pagerank_by_walks(g, walk, log);
  const WalkStatistics& s = estimate.walks;
  phases.add("walk", phase.seconds());
  phase.reset();
  log.info("walks       " + std::to_string(s.walkers) + " walks (" + std::to_string(walk.walkers) + " walkers per node), " + std::to_string(s.hops) + " hops (" +
           std::to_string(s.teleports) + " teleports from dangling nodes), " + std::to_string(s.truncated) +
           " truncated at max-length, " + fmt(s.walk_seconds, 3) + " s");
  std::ostringstream result;
  result << "nodes=" << g.n_global() << " walkers=" << walk.walkers << " walks=" << s.walkers << " hops=" << s.hops
         << " walk_seconds=" << fmt(s.walk_seconds, 4);

  PageRankExact exact;
  PageRankComparison cmp;
  if (reference) {
    Timer timer;
    exact = pagerank_exact(g, walk.p_halt, walk.step);
    cmp = compare_pagerank(g, estimate.rank, exact.rank);
    char bound[32];
    std::snprintf(bound, sizeof bound, "%.2e", exact.error_bound);
    log.info("reference   power iteration: " + std::to_string(exact.iterations) + " iterations, L1 error bound " +
             bound + ", " + fmt(timer.seconds(), 3) + " s");
    log.info("error       L1 " + fmt(cmp.l1_error, 6) + ", max relative " + fmt(cmp.max_relative_error, 6) + ", top-" +
             std::to_string(cmp.top_size) + " overlap " + std::to_string(cmp.top_overlap));
    phases.add("reference", phase.seconds());
    phase.reset();
    result << " l1_error=" << fmt(cmp.l1_error, 8) << " max_relative_error=" << fmt(cmp.max_relative_error, 8)
           << " top_overlap=" << cmp.top_overlap << " reference_iterations=" << exact.iterations;
  }
  log.result(result.str());

  if (!out_path.empty()) {
    H5Output out(comm, out_path);
    out.write_provenance(ctx.command_line, comm.size(), ctx.config_text, walk.seed);
    const CanonicalOrder order(g);
    write_node_rows(out, order, "/nodes/id", g.original_id);
    write_node_names(out, g);
    write_node_rows(out, order, "/pagerank/estimate", estimate.rank);
    out.set_attribute("/pagerank", "damping", 1 - walk.p_halt);
    out.set_attribute("/pagerank", "walkers", walk.walkers);
    out.set_attribute("/pagerank", "coupling", coupling_name(walk.coupling));
    out.set_attribute("/pagerank", "step", std::string(walk.step == StepRule::weighted ? "weighted" : "uniform"));
    if (reference) {
      write_node_rows(out, order, "/pagerank/exact", exact.rank);
      out.set_attribute("/pagerank", "l1_error", cmp.l1_error);
      out.set_attribute("/pagerank", "max_relative_error", cmp.max_relative_error);
      out.set_attribute("/pagerank", "top_overlap", cmp.top_overlap);
    }
    out.commit();
    log.info("wrote       " + out_path + " (rows in ascending node id order)");
    phases.add("write", phase.seconds());
  }
  log.info(phases.line(total.seconds()));
  print_run_summary(log, comm, total.seconds());
  return 0;
}

}  // namespace graphrf
