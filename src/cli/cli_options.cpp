// Option groups shared by several commands: kernels and walks.
#include <charconv>
#include <sstream>

#include "graphrf/cli/cli.hpp"
#include "graphrf/grf/dense_gather.hpp"
#include "graphrf/io/h5_output.hpp"

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

DistributedGraph load_graph_for_command(const CommandContext& ctx, const GraphOptions& options,
                                        const std::string& out_path, bool reference) {
  if (!out_path.empty()) check_output_writable(ctx.comm, out_path);
  DistributedGraph g = load_graph(ctx.comm, options);
  if (reference) check_reference_size(g);
  ctx.log.info("graph       " + graph_summary(g));
  return g;
}

void add_kernel_options(po::options_description& desc) {
  desc.add_options()
      ("kernel", po::value<std::string>()->default_value("diffusion"),
       "diffusion | exp-adjacency | regularized-laplacian | p-step | cosine (ignored with --alpha or --f)")
      ("beta", po::value<double>()->default_value(1.0), "kernel parameter beta (diffusion time, Laplacian scale, cosine frequency)")
      ("power", po::value<double>()->default_value(1.0), "exponent of regularized-laplacian and p-step")
      ("shift", po::value<double>()->default_value(2.0), "p-step shift (>= 2)")
      ("alpha", po::value<std::string>(), "the mask's series coefficients a0,a1,... directly (f by deconvolution)")
      ("f", po::value<std::string>(), "the modulation function f0,f1,... directly (alpha = f * f)");
}

KernelSpec kernel_spec_from(const po::variables_map& vm) {
  KernelSpec spec;
  if (vm.count("alpha") && vm.count("f")) throw InputError("--alpha and --f: give one of them, not both");
  if (vm.count("alpha")) {
    spec.kind = KernelKind::alpha;
    spec.coefficients = parse_list("--alpha", vm["alpha"].as<std::string>());
  } else if (vm.count("f")) {
    spec.kind = KernelKind::f;
    spec.coefficients = parse_list("--f", vm["f"].as<std::string>());
  } else {
    spec.kind = parse_kernel_kind(vm["kernel"].as<std::string>());
  }
  spec.beta = vm["beta"].as<double>();
  spec.power = vm["power"].as<double>();
  spec.shift = vm["shift"].as<double>();
  validate_parameters(spec);
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

void add_coupling_options(po::options_description& desc) {
  desc.add_options()
      ("coupling", po::value<std::string>()->default_value("iid"),
       "iid | antithetic | sigma | repelling | antithetic+repelling | sigma+repelling. antithetic: pairs k, "
       "k + n/2 share termination; sigma: pair lengths from matched quantiles (--sigma); repelling: the walkers "
       "of a node move as a pack and spread over neighbours")
      ("sigma", po::value<std::string>(), "sigma coupling: permutation file (1-based values, e.g. from graphrf couple)");
}

void read_coupling_options(const po::variables_map& vm, WalkOptions& o) {
  o.coupling = parse_coupling(vm["coupling"].as<std::string>());
  if (!vm.count("sigma")) return;
  if (termination_of(o.coupling) != Termination::sigma)
    throw InputError("--sigma: only used with --coupling sigma or sigma+repelling (got --coupling " +
                     std::string(coupling_name(o.coupling)) + ")");
  o.sigma = read_sigma_file(vm["sigma"].as<std::string>());
}

void add_walk_options(po::options_description& desc) {
  desc.add_options()
      ("walkers,n", po::value<std::int64_t>()->default_value(16), "walkers per node")
      ("p-halt", po::value<double>()->default_value(0.5), "halting probability before every hop")
      ("max-length", po::value<std::int64_t>()->default_value(32), "walks stop after this many hops (series truncation)")
      ("seed", po::value<std::uint64_t>()->default_value(1), "random seed (walks depend on it, not on ranks or partitions)");
  add_coupling_options(desc);
  desc.add_options()
      ("step", po::value<std::string>()->default_value("uniform"), "uniform | weighted (next node in proportion to a_ij)")
      ("weights", po::value<std::string>()->default_value("normalized"), "W = D^-1/2 A D^-1/2 (normalized) or scale * A (raw)")
      ("scale", po::value<double>()->default_value(1.0), "c in W = c * A when --weights raw");
}

WalkOptions walk_options_from(const po::variables_map& vm) {
  WalkOptions o;
  o.walkers = vm["walkers"].as<std::int64_t>();
  o.p_halt = vm["p-halt"].as<double>();
  o.max_length = vm["max-length"].as<std::int64_t>();
  o.seed = vm["seed"].as<std::uint64_t>();
  read_coupling_options(vm, o);
  o.step = parse_step_rule(vm["step"].as<std::string>());
  o.weights = parse_weight_mode(vm["weights"].as<std::string>());
  o.scale = vm["scale"].as<double>();
  validate(o);
  return o;
}

}  // namespace graphrf
