// `graphrf couple`: learn the permutation of a sigma-coupling of walk lengths for a graph, a p_halt and a
// target (a kernel or PageRank) by optimal transport, and write it for --coupling sigma --sigma FILE.
#include "graphrf/cli/cli.hpp"
#include "graphrf/core/timer.hpp"
#include "graphrf/grf/couple_run.hpp"
#include "graphrf/grf/sigma_file.hpp"
#include "graphrf/io/report_output.hpp"
#include "graphrf/mpi/run_summary.hpp"

namespace graphrf {

void add_directed_option(po::options_description& desc);
GraphOptions directed_graph_options_from(const po::variables_map& vm);

void add_couple_options(po::options_description& desc) {
  add_graph_options(desc);
  add_directed_option(desc);
  add_kernel_options(desc);
  desc.add_options()
      ("target", po::value<std::string>()->default_value("kernel"),
       "kernel (the --kernel options; cost of Eq. 48) | pagerank (end points; dangling nodes teleport)")
      ("p-halt", po::value<double>()->default_value(0.5), "halting probability the coupling is learned for")
      ("max-length", po::value<std::int64_t>()->default_value(32), "walks stop after this many hops")
      ("seed", po::value<std::uint64_t>()->default_value(1), "random seed")
      ("weights", po::value<std::string>()->default_value("normalized"),
       "W = D^-1/2 A D^-1/2 (normalized), scale * A (raw), or combinatorial: kernels of L = D - A by walks on "
       "W = I - L/d_max (see grf --help)")
      ("scale", po::value<double>()->default_value(1.0), "c in W = c * A when --weights raw")
      ("sigma-order", po::value<int>()->default_value(8), "m: the number of length quantiles sigma permutes")
      ("samples", po::value<std::int64_t>()->default_value(64), "S: walks per quantile and start node")
      ("start-nodes", po::value<std::int64_t>()->default_value(64),
       "about this many start nodes, spread evenly over the canonical order (all nodes if the graph is smaller)")
      ("out", po::value<std::string>(), "write sigma here (text, 1-based, readable by --sigma)");
}

namespace {
// --target pagerank learns sigma for PageRank walks: a kernel option would be ignored.
void refuse_kernel_options(const po::variables_map& vm) {
  const std::pair<const char*, bool> set[] = {{"kernel", vm["kernel"].as<std::string>() != "diffusion"},
                                              {"beta", vm["beta"].as<double>() != 1.0},
                                              {"power", vm["power"].as<double>() != 1.0},
                                              {"shift", vm["shift"].as<double>() != 2.0},
                                              {"alpha", vm.count("alpha") > 0},
                                              {"f", vm.count("f") > 0}};
  for (const auto& [name, given] : set)
    if (given) throw InputError(std::string("--") + name + ": a kernel option; --target pagerank learns sigma for PageRank walks");
}
}  // namespace

int run_couple(const CommandContext& ctx) {
  const Communicator& comm = ctx.comm;
  const auto& vm = ctx.vm;
  GraphOptions graph_options;
  CoupleRunOptions options;
  SigmaLearningOptions& o = options.learning;
  std::string out_path;
  collective_try(comm, [&] {
    graph_options = directed_graph_options_from(vm);
    o.target = parse_sigma_target(vm["target"].as<std::string>());
    if (o.target == SigmaTarget::kernel) o.kernel = kernel_spec_from(vm);
    if (o.target == SigmaTarget::pagerank) refuse_kernel_options(vm);
    if (o.target == SigmaTarget::kernel && graph_options.directed)
      throw InputError("--directed: only with --target pagerank (kernels need undirected graphs)");
    o.walk.p_halt = vm["p-halt"].as<double>();
    o.walk.max_length = vm["max-length"].as<std::int64_t>();
    o.walk.seed = vm["seed"].as<std::uint64_t>();
    o.walk.weights = parse_weight_mode(vm["weights"].as<std::string>());
    o.walk.scale = vm["scale"].as<double>();
    if (o.walk.weights == WeightMode::combinatorial && o.target != SigmaTarget::kernel)
      throw InputError("--weights combinatorial: only with --target kernel (PageRank walks do not use W)");
    if (o.walk.weights == WeightMode::raw && o.target != SigmaTarget::kernel)
      throw InputError("--weights raw: only with --target kernel (PageRank walks do not use W)");
    if (o.walk.weights != WeightMode::raw && o.walk.scale != 1.0)
      throw InputError("--scale: applies to --weights raw (W = scale * A)");
    o.order = vm["sigma-order"].as<int>();
    o.samples = vm["samples"].as<std::int64_t>();
    options.start_nodes = vm["start-nodes"].as<std::int64_t>();
    if (o.order < 1 || o.order > 4096) throw InputError("--sigma-order: must be in 1..4096 (got " + std::to_string(o.order) + ")");
    if (o.samples < 1 || o.samples > 1000000)
      throw InputError("--samples: must be in 1..1000000 (got " + std::to_string(o.samples) + ")");
    if (options.start_nodes < 2)
      throw InputError("--start-nodes: must be >= 2 (got " + std::to_string(options.start_nodes) + ")");
    WalkOptions check = o.walk;
    check.walkers = o.samples;
    validate(check);
    if (vm.count("out")) out_path = vm["out"].as<std::string>();
  });
  const Log& log = ctx.log;
  Timer total, phase;
  PhaseTimes phases;
  const DistributedGraph g = load_graph_for_command(ctx, graph_options, out_path);  // checks --out first
  phases.add("load", phase.seconds());
  phase.reset();
  bind_walk_weights(log, g, o.walk, o.kernel);
  const CoupleResult result = run_couple(g, options, log);
  phases.add("walk", result.learned.walk_seconds);
  phases.add("cost", result.learned.cost_seconds);
  phases.add("assignment", result.learned.solve_seconds);
  print_report(log, result.report);

  phase.reset();
  if (!out_path.empty()) {
    write_sigma_file(comm, out_path, result, ctx.command_line);
    log.info("wrote       " + out_path);
    phases.add("write", phase.seconds());
  }
  log.info(phases.line(total.seconds()));
  print_run_summary(log, comm, total.seconds());
  return 0;
}

}  // namespace graphrf
