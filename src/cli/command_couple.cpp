// `graphrf couple`: learn the permutation of a sigma-coupling of walk lengths for a graph, a p_halt and a
// target (a kernel or PageRank) by optimal transport, and write it for --coupling sigma --sigma FILE.
#include "graphrf/cli/commands.hpp"
#include "graphrf/core/timer.hpp"
#include "graphrf/grf/couple_run.hpp"
#include "graphrf/grf/sigma_file.hpp"
#include "graphrf/io/report_output.hpp"
#include "graphrf/mpi/run_summary.hpp"

namespace graphrf {

void add_directed_option(po::options_description& desc, bool& directed);
GraphOptions directed_graph_options_from(const GraphArguments& a, bool directed);

namespace {

struct CoupleCommandOptions {
  GraphArguments graph;
  bool directed = false;
  KernelArguments kernel;
  std::string target;
  WalkOptions walk;  // p_halt, max_length, seed, scale
  std::string weights;
  int sigma_order = 8;
  std::int64_t samples = 64, start_nodes = 64;
  std::optional<std::string> out;
};

void declare_couple_options(po::options_description& desc, CoupleCommandOptions& o) {
  add_graph_options(desc, o.graph);
  add_directed_option(desc, o.directed);
  add_kernel_options(desc, o.kernel);
  desc.add_options()
      ("target", po::value(&o.target)->default_value("kernel"),
       "kernel (the --kernel options; cost of Eq. 48) | pagerank (end points; dangling nodes teleport)")
      ("p-halt", po::value(&o.walk.p_halt)->default_value(0.5), "halting probability the coupling is learned for")
      ("max-length", po::value(&o.walk.max_length)->default_value(32), "walks stop after this many hops")
      ("seed", po::value(&o.walk.seed)->default_value(1), "random seed")
      ("weights", po::value(&o.weights)->default_value("normalized"),
       "W = D^-1/2 A D^-1/2 (normalized), scale * A (raw), or combinatorial: kernels of L = D - A by walks on "
       "W = I - L/d_max (see grf --help)")
      ("scale", po::value(&o.walk.scale)->default_value(1.0), "c in W = c * A when --weights raw")
      ("sigma-order", po::value(&o.sigma_order)->default_value(8), "m: the number of length quantiles sigma permutes")
      ("samples", po::value(&o.samples)->default_value(64), "S: walks per quantile and start node")
      ("start-nodes", po::value(&o.start_nodes)->default_value(64),
       "about this many start nodes, spread evenly over the canonical order (all nodes if the graph is smaller)")
      ("out", optional_value(&o.out), "write sigma here (text, 1-based, readable by --sigma)");
}

// --target pagerank learns sigma for PageRank walks: a kernel option would be ignored.
void refuse_kernel_options(const KernelArguments& k) {
  const std::pair<const char*, bool> set[] = {{"kernel", k.kernel != "diffusion"},
                                              {"beta", k.spec.beta != 1.0},
                                              {"power", k.spec.power != 1.0},
                                              {"shift", k.spec.shift != 2.0},
                                              {"alpha", k.alpha.has_value()},
                                              {"f", k.f.has_value()}};
  for (const auto& [name, given] : set)
    if (given) throw InputError(std::string("--") + name + ": a kernel option; --target pagerank learns sigma for PageRank walks");
}

int run_couple_command(const CommandContext& ctx, CoupleCommandOptions& c) {
  const Communicator& comm = ctx.comm;
  GraphOptions graph_options;
  CoupleRunOptions options;
  SigmaLearningOptions& o = options.learning;
  std::string out_path;
  collective_try(comm, [&] {
    graph_options = directed_graph_options_from(c.graph, c.directed);
    o.target = parse_sigma_target(c.target);
    if (o.target == SigmaTarget::kernel) o.kernel = kernel_spec_from(c.kernel, c.weights);
    if (o.target == SigmaTarget::pagerank) refuse_kernel_options(c.kernel);
    if (o.target == SigmaTarget::kernel && graph_options.directed)
      throw InputError("--directed: only with --target pagerank (kernels need undirected graphs)");
    o.walk.p_halt = c.walk.p_halt;
    o.walk.max_length = c.walk.max_length;
    o.walk.seed = c.walk.seed;
    o.walk.weights = parse_weight_mode(c.weights);
    o.walk.scale = c.walk.scale;
    if (o.walk.weights == WeightMode::combinatorial && o.target != SigmaTarget::kernel)
      throw InputError("--weights combinatorial: only with --target kernel (PageRank walks do not use W)");
    if (o.walk.weights == WeightMode::raw && o.target != SigmaTarget::kernel)
      throw InputError("--weights raw: only with --target kernel (PageRank walks do not use W)");
    if (o.walk.weights != WeightMode::raw && o.walk.scale != 1.0)
      throw InputError("--scale: applies to --weights raw (W = scale * A)");
    o.order = c.sigma_order;
    o.samples = c.samples;
    options.start_nodes = c.start_nodes;
    if (o.order < 1 || o.order > 4096) throw InputError("--sigma-order: must be in 1..4096 (got " + std::to_string(o.order) + ")");
    if (o.samples < 1 || o.samples > 1000000)
      throw InputError("--samples: must be in 1..1000000 (got " + std::to_string(o.samples) + ")");
    if (options.start_nodes < 2)
      throw InputError("--start-nodes: must be >= 2 (got " + std::to_string(options.start_nodes) + ")");
    WalkOptions check = o.walk;
    check.walkers = o.samples;
    validate(check);
    if (c.out) out_path = *c.out;
  });
  const Log& log = ctx.log;
  Timer total, phase;
  PhaseTimes phases;
  const DistributedGraph g = load_graph_for_command(ctx, c.graph, graph_options, out_path);  // checks --out first
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

}  // namespace

Command couple_command() {
  return make_command<CoupleCommandOptions>(
      "couple", "learn a sigma-coupling of walk lengths for a graph and target (writes --sigma files)",
      declare_couple_options, run_couple_command);
}

}  // namespace graphrf
