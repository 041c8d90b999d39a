// `graphrf bench-couplings`: how much each walk coupling reduces Monte Carlo error (Reid et al. 2024,
// "Variance-reducing couplings for random features", Sec. 4 and App. E). For every graph, coupling and walker
// count it prints, over many seeds, the mean squared relative error with a 95% interval of
//   kernel:   ||Phi Phi^T - M||_F^2 / ||M||_F^2, M the 2-regularised Laplacian (I + beta L)^-2 (dense, exact);
//   pagerank: ||pi^ - pi||_2^2 / ||pi||_2^2, pi by power iteration to 1e-12.
// Sigma couplings use the permutations given (learned once with `graphrf couple`, then transferred).
#include <cmath>
#include <optional>
#include <sstream>

#include "graphrf/cli/commands.hpp"
#include "graphrf/cli/mean_interval.hpp"
#include "graphrf/grf/dense_gather.hpp"
#include "graphrf/grf/dense_reference.hpp"
#include "graphrf/grf/grf_pipeline.hpp"
#include "graphrf/walks/pagerank.hpp"

namespace graphrf {

namespace {

struct BenchCouplingsOptions {
  std::string graphs, targets, couplings, walkers_list;
  int seeds = 50;
  double beta = 1.0, p_halt = 0.5, pagerank_p_halt = 0.15;
  std::int64_t max_length = 64;
  std::optional<std::string> sigma, pagerank_sigma;  // permutation files
  int host_size = 0;
};

void declare_bench_couplings_options(po::options_description& desc, BenchCouplingsOptions& o) {
  desc.add_options()
      ("graphs", po::value(&o.graphs)->default_value("random:1000:10:1"),
       "graphs, ;-separated (files or generated; kernel errors need <= 5000 nodes)")
      ("targets", po::value(&o.targets)->default_value("kernel,pagerank"), "kernel and/or pagerank")
      ("couplings", po::value(&o.couplings)->default_value("iid,antithetic,sigma,repelling,antithetic+repelling,sigma+repelling"),
       "couplings, comma-separated")
      ("walkers-list", po::value(&o.walkers_list)->default_value("2,4,8,16"), "walkers per node")
      ("seeds", po::value(&o.seeds)->default_value(50), "independent repetitions per configuration")
      ("beta", double_value(&o.beta, 1.0), "beta of the 2-regularised Laplacian kernel (I + beta L)^-2")
      ("p-halt", double_value(&o.p_halt, 0.5), "halting probability of the kernel walks")
      ("pagerank-p-halt", double_value(&o.pagerank_p_halt, 0.15), "teleport probability of PageRank")
      ("max-length", po::value(&o.max_length)->default_value(64), "kernel walk length cap")
      ("sigma", optional_value(&o.sigma), "permutation file for the kernel's sigma couplings (graphrf couple)")
      ("pagerank-sigma", optional_value(&o.pagerank_sigma), "permutation file for PageRank's sigma couplings (couple --target pagerank)")
      ("host-size", po::value(&o.host_size)->default_value(0), "ranks per host (as for every command; 1: all crossings by message)");
}

int run_bench_couplings(const CommandContext& ctx, BenchCouplingsOptions& options) {
  const Communicator& comm = ctx.comm;
  std::vector<std::string> graphs, targets;
  std::vector<Coupling> couplings;
  std::vector<std::int64_t> walker_counts;
  std::vector<int> kernel_sigma, pagerank_sigma;
  int seeds = 0;
  collective_try(comm, [&] {
    graphs = split_list(options.graphs, ';');
    targets = split_list(options.targets, ',');
    for (const auto& t : targets)
      if (t != "kernel" && t != "pagerank") throw InputError("--targets: expected kernel and/or pagerank (got '" + t + "')");
    for (const auto& c : split_list(options.couplings, ',')) couplings.push_back(parse_coupling(c));
    walker_counts = walkers_list_from(options.walkers_list);
    if (options.host_size < 0) throw InputError("--host-size: must be 0 (each machine) or a number of ranks >= 1");
    seeds = options.seeds;
    if (seeds < 2) throw InputError("--seeds: must be >= 2 (got " + std::to_string(seeds) + ")");
    bool needs_sigma = false;
    for (Coupling c : couplings) needs_sigma |= termination_of(c) == Termination::sigma;
    for (const auto& t : targets) {
      const bool is_kernel = t == "kernel";
      const std::optional<std::string>& file = is_kernel ? options.sigma : options.pagerank_sigma;
      if (!needs_sigma) continue;
      if (!file)
        throw InputError(std::string(is_kernel ? "--sigma" : "--pagerank-sigma") +
                         ": sigma couplings need a permutation for the " + t + " target");
      (is_kernel ? kernel_sigma : pagerank_sigma) = read_sigma_file(*file);
    }
  });
  const Log& log = ctx.log;
  const Log quiet(comm, true);
  KernelSpec kernel;
  kernel.kind = KernelKind::regularized_laplacian;
  kernel.beta = options.beta;
  kernel.power = 2;
  for (const auto& spec : graphs) {
    GraphOptions o;
    o.graph = spec;
    o.host_size = options.host_size;
    const DistributedGraph g = load_graph(comm, o);
    log.info("graph       " + graph_summary(g));
    for (const auto& target : targets) {
      const bool is_kernel = target == "kernel";
      WalkOptions base;
      base.p_halt = is_kernel ? options.p_halt : options.pagerank_p_halt;
      base.max_length = is_kernel ? options.max_length : pagerank_default_max_length(base.p_halt);
      Eigen::MatrixXd exact_kernel;
      std::vector<double> exact_rank;
      double exact_rank_norm_sq = 0;
      if (is_kernel) {
        check_dense_size(g, "bench-couplings --targets kernel: the exact kernel");
        const Eigen::MatrixXd w = gather_dense_w(g, base);
        if (comm.is_root()) exact_kernel = kernel_matrix_exact(kernel, w);
      } else {
        exact_rank = pagerank_exact(g, base.p_halt).rank;
        for (double v : exact_rank) exact_rank_norm_sq += v * v;
        exact_rank_norm_sq = comm.sum(exact_rank_norm_sq);
      }
      for (const auto n : walker_counts) {
        double iid_mean = 0;
        for (const Coupling coupling : couplings) {
          if (termination_of(coupling) != Termination::iid && n % 2 != 0) continue;
          std::vector<double> errors;
          for (int r = 0; r < seeds; ++r) {
            WalkOptions walk = base;
            walk.walkers = n;
            walk.coupling = coupling;
            walk.seed = 1 + static_cast<std::uint64_t>(r);
            if (termination_of(coupling) == Termination::sigma) walk.sigma = is_kernel ? kernel_sigma : pagerank_sigma;
            double error = 0;
            if (is_kernel) {
              const GrfRun run = compute_grf(g, kernel, walk, GrfEstimator::symmetric, quiet);
              const Eigen::MatrixXd estimate = dense_kernel_estimate(g, run);
              if (comm.is_root()) error = std::pow(relative_frobenius_error(estimate, exact_kernel), 2);
              comm.broadcast(error);
            } else {
              const auto estimate = pagerank_by_walks(g, walk, quiet).rank;
              double diff = 0;
              for (size_t i = 0; i < estimate.size(); ++i) diff += std::pow(estimate[i] - exact_rank[i], 2);
              error = comm.sum(diff) / exact_rank_norm_sq;
            }
            errors.push_back(error);
          }
          const MeanInterval m = mean_interval(errors);
          if (coupling == Coupling::iid) iid_mean = m.mean;
          std::ostringstream line;
          line << "bench=couplings graph=" << spec << " target=" << target << " coupling=" << coupling_name(coupling)
               << " walkers=" << n << " p_halt=" << base.p_halt << " seeds=" << seeds << " mse=" << fmt(m.mean, 6)
               << " ci95=" << fmt(m.half_width, 6);
          if (iid_mean > 0) line << " vs_iid=" << fmt(m.mean / iid_mean, 3);
          log.result(line.str());
        }
      }
    }
  }
  return 0;
}

}  // namespace

Command bench_couplings_command() {
  return make_command<BenchCouplingsOptions>(
      "bench-couplings", "benchmark: Monte Carlo error of every walk coupling (kernel and PageRank) over many seeds",
      declare_bench_couplings_options, run_bench_couplings);
}

}  // namespace graphrf
