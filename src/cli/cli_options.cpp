// Option groups shared by several commands: kernels and walks.
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <sstream>

#include "graphrf/cli/cli.hpp"
#include "graphrf/core/memory_budget.hpp"
#include "graphrf/core/run_phase.hpp"
#include "graphrf/core/timer.hpp"
#include "graphrf/grf/combinatorial_laplacian.hpp"
#include "graphrf/grf/dense_gather.hpp"
#include "graphrf/graph/graph_output.hpp"
#include "graphrf/io/h5_output.hpp"
#include "graphrf/points/point_graph.hpp"

namespace graphrf {

namespace {
std::vector<double> parse_list(const std::string& option, const std::string& text) {
  std::vector<double> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find(',', pos);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(pos, end - pos);
    double v = 0;
    const auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (item.empty() || ec != std::errc() || ptr != item.data() + item.size())
      throw InputError(option + ": expected comma-separated numbers (got '" + text + "')");
    out.push_back(v);
    pos = end + 1;
  }
  return out;
}
}  // namespace

void check_input_readable(const Communicator& comm, const std::string& option, const std::string& path) {
  collective_try(comm, [&] {
    if (::access(path.c_str(), R_OK) != 0)
      throw InputError(option + (option.back() == ':' ? "" : " ") + path + ": cannot open: " + std::strerror(errno));
  });
}

PointGraphOptions point_graph_options_from(const GraphArguments& a) {
  PointGraphOptions o = a.points;
  o.mode = parse_knn_mode(a.knn_mode);
  o.weight = parse_edge_weight(a.edge_weight);
  validate(o, -1);
  return o;
}

// --points: every rank reads the cloud (one collective error for a bad file) and builds its rows' neighbours.
static DistributedGraph load_point_graph_for_command(const CommandContext& ctx, const GraphArguments& a,
                                                     const GraphOptions& options) {
  const std::string path = *a.points_path;
  PointGraphOptions o;
  PointCloud cloud;
  collective_try(ctx.comm, [&] {
    o = point_graph_options_from(a);
    cloud = read_point_cloud(path, a.points_format);
  });
  const std::string shape = o.knn > 0 ? std::to_string(o.knn) + "-NN (" + a.knn_mode + ")"
                                      : "radius " + std::to_string(o.radius);
  DistributedGraph g = build_point_graph(ctx.comm, cloud, o, options.partition,
                                        path + ": " + std::to_string(cloud.size()) + " points in R^" +
                                            std::to_string(cloud.dim) + ", " + shape,
                                        options.host_size);
  g.replicate_walk_table = options.replicate_graph;
  check_replica_fits(g, options.memory_limit);
  return g;
}

std::vector<NamedInput> command_inputs(const po::variables_map& vm) {
  std::vector<NamedInput> inputs;
  for (const char* name : {"config", "graph", "points", "qkv", "frames", "observations", "test", "sigma", "pagerank-sigma",
                           "dark-sigma"})
    if (vm.count(name)) inputs.push_back({std::string("--") + name, vm[name].as<std::string>()});
  if (vm.count("partition") && vm["partition"].as<std::string>().rfind("file:", 0) == 0)
    inputs.push_back({"--partition file:", vm["partition"].as<std::string>().substr(5)});
  return inputs;
}

// --points builds the graph on a point cloud, --graph reads or generates one: the options of the source not
// taken would be ignored, so they are refused (values equal to the defaults pass, as --dump-config writes them).
static void check_graph_source_options(const GraphArguments& a) {
  const auto set = []<class T>(const char* name, const T& value, const T& default_value) {
    return value != default_value ? std::string(name) : std::string();
  };
  const GraphOptions& g = a.options;
  const PointGraphOptions& p = a.points;
  const std::string file_option[] = {set("graph", g.graph, std::string("grid:32x32")), set("format", g.format, std::string("auto")),
                                     set("duplicates", a.duplicates, std::string("max")), set("keep-self-loops", g.keep_self_loops, false),
                                     set("weight-column", g.weight_column, 0),           set("ids", a.ids, std::string("auto"))};
  const std::string point_option[] = {set("points-format", a.points_format, std::string("auto")), set("knn", p.knn, std::int64_t{0}),
                                      set("knn-mode", a.knn_mode, std::string("union")),         set("radius", p.radius, 0.0),
                                      set("edge-weight", a.edge_weight, std::string("one")),     set("edge-sigma", p.sigma, 1.0)};
  const bool points = a.points_path.has_value();
  for (const std::string& name : points ? file_option : point_option)
    if (!name.empty())
      throw InputError("--" + name + (points ? ": applies to --graph, but --points builds the graph on a point cloud"
                                             : ": applies to --points (a point cloud), not to --graph"));
}

DistributedGraph load_command_graph(const CommandContext& ctx, const GraphArguments& arguments,
                                    const GraphOptions& options) {
  collective_try(ctx.comm, [&] { check_graph_source_options(arguments); });
  return arguments.points_path ? load_point_graph_for_command(ctx, arguments, options) : load_graph(ctx.comm, options);
}

DistributedGraph load_graph_for_command(const CommandContext& ctx, const GraphArguments& arguments,
                                        const GraphOptions& options, const std::string& out_path) {
  if (!out_path.empty()) check_output_writable(ctx.comm, out_path, command_inputs(ctx.vm));
  // A partition file is read after the graph: check it first, so a typo does not cost the whole load.
  if (options.partition.rfind("file:", 0) == 0) check_input_readable(ctx.comm, "--partition file:", options.partition.substr(5));
  const bool points = arguments.points_path.has_value();
  const std::string source = points ? *arguments.points_path : options.graph;
  ctx.log.info("loading     " + source + " (read or " + (points ? "build the point graph" : "generate") +
               ", then partition: " + options.partition + ")");
  const Timer timer;
  const RunPhase phase("loading " + source);
  DistributedGraph g = load_command_graph(ctx, arguments, options);
  ctx.log.info("graph       " + graph_summary(g) + " (" + fmt(timer.seconds(), 2) + " s)");
  if (!out_path.empty()) check_node_names_fit(g, memory_budget());  // before the run, not at the write
  return g;
}

void add_kernel_options(po::options_description& desc, KernelArguments& a) {
  po::options_description group("kernel");
  group.add_options()
      ("kernel", po::value(&a.kernel)->default_value("diffusion"),
       "diffusion | exp-adjacency | regularized-laplacian | p-step | cosine (not with --alpha or --f); functions of "
       "L = I - W, or of L = D - A with --weights combinatorial (then not exp-adjacency or p-step)")
      ("beta", double_value(&a.spec.beta, 1.0), "kernel parameter beta (diffusion time, Laplacian scale, cosine frequency)")
      ("power", double_value(&a.spec.power, 1.0), "exponent of regularized-laplacian and p-step")
      ("shift", double_value(&a.spec.shift, 2.0), "p-step shift (>= 2)")
      ("alpha", optional_value(&a.alpha), "the mask's series coefficients a0,a1,... of powers of the walk matrix W directly "
       "(f by deconvolution; with --weights combinatorial W = I - (D - A)/d_max)")
      ("f", optional_value(&a.f), "the modulation function f0,f1,... directly (alpha = f * f; powers of the same W)");
  desc.add(group);
}

KernelSpec kernel_spec_from(const KernelArguments& a, const std::string& weights) {
  KernelSpec spec = a.spec;
  if (a.alpha && a.f) throw InputError("--alpha and --f: give one of them, not both");
  // --alpha and --f give the series itself: a named kernel or its parameters would be ignored silently.
  // (Values equal to the defaults pass, so configurations written by --dump-config load back.)
  if (a.alpha || a.f) {
    const std::string series = a.alpha ? "--alpha" : "--f";
    const std::pair<std::string, bool> ignored[] = {{"kernel", a.kernel != "diffusion"},
                                                    {"beta", spec.beta != 1.0},
                                                    {"power", spec.power != 1.0},
                                                    {"shift", spec.shift != 2.0}};
    for (const auto& [name, set] : ignored)
      if (set) throw InputError(series + " and --" + name + ": " + series + " gives the series itself, so --" + name +
                                " would be ignored; give one of them");
  }
  if (a.alpha) {
    spec.kind = KernelKind::alpha;
    spec.coefficients = parse_list("--alpha", *a.alpha);
  } else if (a.f) {
    spec.kind = KernelKind::f;
    spec.coefficients = parse_list("--f", *a.f);
  } else {
    spec.kind = parse_kernel_kind(a.kernel);
  }
  validate_parameters(spec);
  // Refused before the graph is loaded (d_max, and so the kernel's scale, is only known after).
  if (weights == "combinatorial" && (spec.kind == KernelKind::exp_adjacency || spec.kind == KernelKind::p_step))
    throw InputError("--kernel " + std::string(kernel_kind_name(spec.kind)) + " and --weights combinatorial: " +
                     (spec.kind == KernelKind::exp_adjacency ? "exp(beta W) is a function of the walk matrix, not of L = D - A"
                                                              : "the p-step shift >= 2 presumes the normalised spectrum [0, 2]") +
                     "; use diffusion, regularized-laplacian, cosine, --alpha or --f");
  return spec;
}

std::vector<std::string> split_list(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, sep))
    if (!item.empty()) out.push_back(item);
  return out;
}

namespace {

// Each item of a benchmark list option checked as the scalar option checks its value (validate(WalkOptions)).
void check_list_item(const std::string& option, const std::string& item, const WalkOptions& walk) {
  try {
    validate(walk);
  } catch (const InputError& e) {
    throw InputError(option + ": item '" + item + "': " + e.what());
  }
}

std::vector<std::string> list_items(const std::string& text, const std::string& name) {
  const std::vector<std::string> items = split_list(text, ',');
  if (items.empty()) throw InputError("--" + name + ": expected a comma-separated list (got an empty one)");
  return items;
}

// The items of a benchmark list option, each parsed into `field` of a default WalkOptions and checked there.
template <class T>
std::vector<T> walk_option_list(const std::string& text, const std::string& name, T WalkOptions::*field,
                                const char* expected) {
  std::vector<T> out;
  for (const std::string& item : list_items(text, name)) {
    WalkOptions walk;
    const auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), walk.*field);
    if (ec != std::errc() || ptr != item.data() + item.size())
      throw InputError("--" + name + ": item '" + item + "' is not " + expected);
    check_list_item("--" + name, item, walk);
    out.push_back(walk.*field);
  }
  return out;
}

}  // namespace

std::vector<std::int64_t> walkers_list_from(const std::string& text) {
  return walk_option_list(text, "walkers-list", &WalkOptions::walkers, "an integer");
}

std::vector<double> p_halt_list_from(const std::string& text) {
  return walk_option_list(text, "p-halt-list", &WalkOptions::p_halt, "a number");
}

void add_coupling_options(po::options_description& desc, CouplingArguments& a) {
  desc.add_options()
      ("coupling", po::value(&a.coupling)->default_value("iid"),
       "iid | antithetic | sigma | repelling | antithetic+repelling | sigma+repelling. antithetic: pairs k, "
       "k + n/2 share termination; sigma: pair lengths from matched quantiles (--sigma); repelling: the walkers "
       "of a node move as a pack and spread over neighbours")
      ("sigma", optional_value(&a.sigma), "sigma coupling: permutation file (1-based values, e.g. from graphrf couple)");
}

void read_coupling_options(const CouplingArguments& a, WalkOptions& o) {
  o.coupling = parse_coupling(a.coupling);
  if (!a.sigma) return;
  if (termination_of(o.coupling) != Termination::sigma)
    throw InputError("--sigma: only used with --coupling sigma or sigma+repelling (got --coupling " +
                     std::string(coupling_name(o.coupling)) + ")");
  o.sigma = read_sigma_file(*a.sigma);
}

void add_walk_options(po::options_description& desc, WalkArguments& a) {
  po::options_description group("walks");
  // In this order, the order of --dump-config and of /config in every output (the coupling options come first).
  add_coupling_options(group, a.coupling);
  group.add_options()
      ("step", po::value(&a.step)->default_value("uniform"), "uniform | weighted (next node in proportion to a_ij)")
      ("weights", po::value(&a.weights)->default_value("normalized"),
       "normalized: W = D^-1/2 A D^-1/2, L = I - W | raw: W = scale * A | combinatorial: kernels of L = D - A "
       "(PyGSP's), walks on W = I - L/d_max (self-loops (d_max - d_i)/d_max), so beta acts as beta * d_max and "
       "--alpha/--f are coefficients of powers of that W; not with exp-adjacency or p-step")
      ("scale", double_value(&a.options.scale, 1.0), "c in W = c * A when --weights raw")
      ("walkers,n", po::value(&a.options.walkers)->default_value(16), "walkers per node")
      ("p-halt", with_double_default(given_value(&a.options.p_halt, &a.halting_given), 0.5), "halting probability before every hop")
      ("max-length", given_value(&a.options.max_length, &a.halting_given)->default_value(32),
       "walks stop after this many hops (series truncation)")
      ("fixed-length", optional_value(&a.fixed_length),
       "every walker makes exactly T hops, no halting (estimates sum_{t<=T} f_t W^t; replaces --p-halt, --max-length)")
      ("seed", po::value(&a.options.seed)->default_value(1), "random seed (walks depend on it, not on ranks or partitions)");
  desc.add(group);
}

WalkOptions walk_options_from(const WalkArguments& a) {
  WalkOptions o = a.options;
  if (a.fixed_length) {
    if (a.halting_given)
      throw InputError("--fixed-length: give it instead of --p-halt and --max-length, not with them");
    o.fixed_length = true;
    o.max_length = *a.fixed_length;
  }
  read_coupling_options(a.coupling, o);
  o.step = parse_step_rule(a.step);
  o.weights = parse_weight_mode(a.weights);
  if (o.weights == WeightMode::combinatorial && o.scale != 1.0)
    throw InputError("--scale and --weights combinatorial: the combinatorial walk matrix is scaled by 1/d_max itself; "
                     "--scale is for --weights raw");
  if (o.weights == WeightMode::normalized && o.scale != 1.0)
    throw InputError("--scale: applies to --weights raw (W = scale * A); the normalised W = D^-1/2 A D^-1/2 has no scale");
  validate(o);
  return o;
}

void add_reference_options(po::options_description& desc, ReferenceOptions& o, const std::string& what) {
  const ReferenceOptions defaults;
  po::options_description group("reference");
  group.add_options()
      ("reference", po::bool_switch(&o.enabled), ("compare with the exact " + what + ": densely on rank 0 up to --dense-reference-max nodes "
       "(one O(N^3) eigendecomposition: about 1 s at N = 1000, 10 s at 2000, 150 s at 5000), above that from exact rows "
       "for --reference-samples random nodes (Chebyshev expansion on the distributed operator; error with its standard error)").c_str())
      ("dense-reference-max", po::value(&o.dense_max)->default_value(defaults.dense_max),
       ("largest graph (nodes) the reference computes densely, at most " + std::to_string(kMaxDenseReferenceNodes)).c_str())
      ("reference-samples", po::value(&o.samples)->default_value(defaults.samples),
       "nodes whose exact rows the sampled reference computes (its standard error shrinks as 1/sqrt of this)");
  desc.add(group);
}

ReferenceOptions reference_options_from(const ReferenceOptions& o) {
  validate(o);
  return o;
}

void bind_walk_weights(const Log& log, const DistributedGraph& g, WalkOptions& walk, KernelSpec& kernel) {
  if (walk.weights != WeightMode::combinatorial) return;
  bind_combinatorial_laplacian(g, walk, kernel);
  int terms = 0;
  collective_try(*g.comm, [&] { terms = series_terms_needed(kernel); });
  const std::string reach = terms >= 4097 ? "more than 4096" : std::to_string(terms);
  auto number = [](double v) {
    std::ostringstream text;
    text.precision(6);
    text << v;
    return text.str();
  };
  std::string line = "combinatorial: L = D - A, d_max = " + number(walk.max_degree) +
                     "; walks on W = I - L/d_max (self-loops (d_max - d_i)/d_max)";
  if (kernel.kind == KernelKind::diffusion || kernel.kind == KernelKind::regularized_laplacian || kernel.kind == KernelKind::cosine)
    line += ", series beta * d_max = " + number(kernel.beta * kernel.laplacian_scale);
  line += "; f needs " + reach + " terms (all but 1e-6 of sum |f_t|)";
  // Work grows with beta * d_max: walks must reach the hops where f holds its mass, and the importance weights
  // (1 - p)^-t of long walks inflate the variance (row_sum_relative_variance: above 1, one walker's estimate is
  // noisier than what it estimates).
  double relative_variance = 0;
  if (!walk.fixed_length)
    collective_try(*g.comm, [&] {
      relative_variance = row_sum_relative_variance(kernel_f(kernel, static_cast<int>(walk.max_length) + 1), walk.p_halt);
    });
  if (terms > walk.max_length)
    log.warn("--weights " + line + ", more than --max-length " + std::to_string(walk.max_length) +
             ": raise --max-length (and lower --p-halt), or lower --beta");
  else if (relative_variance > 1.0)
    log.warn("--weights " + line + "; one walker's estimate of a row sum has relative variance " + fmt(relative_variance, 2) +
             " (standard error about " + fmt(std::sqrt(relative_variance / static_cast<double>(walk.walkers)), 3) + " with " +
             std::to_string(walk.walkers) + " walkers): lower --beta or --p-halt, or add walkers");
  else
    log.info("weights     " + line);
}

void check_reference_plan(const DistributedGraph& g, const ReferenceOptions& reference, const WalkOptions& walk) {
  collective_try(*g.comm, [&] {
    if (reference.enabled && !dense_reference(reference, g.n_global()) && walk.weights == WeightMode::raw)
      throw InputError("--reference: the graph has " + std::to_string(g.n_global()) + " nodes, above --dense-reference-max " +
                       std::to_string(reference.dense_max) + ", and the sampled reference needs --weights normalized or combinatorial");
  });
}

void check_dense_size(const DistributedGraph& g, const std::string& what) {
  collective_try(*g.comm, [&] {
    if (g.n_global() > kMaxDenseReferenceNodes)
      throw InputError(what + " is dense, at most " + std::to_string(kMaxDenseReferenceNodes) + " nodes (the graph has " +
                       std::to_string(g.n_global()) + ")");
  });
}

}  // namespace graphrf
