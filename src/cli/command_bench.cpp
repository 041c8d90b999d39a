// `graphrf bench`: the walk benchmark. On generated graphs it times the distributed walk phase alone and
// the whole GRF construction, and on rank 0 two plain single-thread loops making the same kind of hops on
// an in-memory CSR (one walker at a time; 64 walkers interleaved with prefetching), and prints the ratios.
#include <algorithm>
#include <sstream>

#include "graphrf/cli/commands.hpp"
#include "graphrf/grf/grf_memory.hpp"
#include "graphrf/grf/grf_pipeline.hpp"
#include "graphrf/mpi/run_summary.hpp"
#include "graphrf/core/timer.hpp"
#include "graphrf/walks/walk_baseline.hpp"

namespace graphrf {

namespace {

struct BenchWalksOptions {
  std::string graphs, walkers_list, p_halt_list, partition, couplings, sigma_permutation;
  std::int64_t max_length = 100000, walk_repeats = 1, grf_repeats = 1;
  std::uint64_t seed = 1;
  int host_size = 0;
  bool replicate_graph = false;
  bool no_baselines = false, by_length = false;
};

void declare_bench_walks_options(po::options_description& desc, BenchWalksOptions& o) {
  desc.add_options()
      ("graphs", po::value(&o.graphs)->default_value("grid:1000x1000;random:1000000:10"), "generated graphs, ;-separated")
      ("walkers-list", po::value(&o.walkers_list)->default_value("1,10"), "walkers per node to try")
      ("p-halt-list", po::value(&o.p_halt_list)->default_value("0.1,0.5"), "halting probabilities to try")
      ("partition", po::value(&o.partition)->default_value("metis"), "partitioner")
      ("host-size", po::value(&o.host_size)->default_value(0), "ranks per host (as for every command; 1: all crossings by message)")
      ("replicate-graph", po::bool_switch(&o.replicate_graph), "every host keeps the whole graph for walks (as for every command)")
      ("max-length", po::value(&o.max_length)->default_value(100000), "walk length cap")
      ("seed", po::value(&o.seed)->default_value(1), "seed")
      ("couplings", po::value(&o.couplings)->default_value("iid"),
       "walk couplings to time, comma-separated (iid, antithetic, sigma, repelling, antithetic+repelling, "
       "sigma+repelling; pair couplings skip odd walker counts)")
      ("sigma-permutation", po::value(&o.sigma_permutation)->default_value("2 4 3 5 1"), "the permutation sigma couplings use")
      ("walk-repeats", po::value(&o.walk_repeats)->default_value(1),
       "time every coupling's walk phase this many times, round-robin (all couplings, then again), and report "
       "medians (walk_hops_per_s, and per_hop_vs_iid: the median of each round's per-hop time over iid's); "
       "single walk phases on a shared or virtual machine vary by tens of percent")
      ("grf-repeats", po::value(&o.grf_repeats)->default_value(1),
       "time the GRF construction this many times and report the median rate (grf_hops_per_s) and the run "
       "closest to it for memory")
      ("no-baselines", po::bool_switch(&o.no_baselines), "skip the single-thread loops")
      ("by-length", po::bool_switch(&o.by_length), "GRF phase keeps M_t too, as `grf --by-length` (default: Phi only, as `grf`)");
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// The share of a walk run this rank spent waiting for the others after its own work ran out (load imbalance).
double idle_share(const WalkStatistics& s) { return s.walk_seconds > 0 ? 1.0 - s.busy_seconds / s.walk_seconds : 0.0; }
// The share of a walk run this rank spent in rounds with nothing to do, whenever they came: besides the idle end,
// waits for walkers or visits held by a slower rank while the row window was full.
double waiting_share(const WalkStatistics& s) { return s.walk_seconds > 0 ? s.waiting_seconds / s.walk_seconds : 0.0; }

struct Baselines {
  double one_at_a_time = 0, interleaved = 0;  // hops per second
};

// Rank 0 loads the same graph alone and runs both plain loops on its CSR.
Baselines run_baselines(const Communicator& comm, const std::string& graph, std::int64_t walkers, double p, std::uint64_t seed) {
  Baselines b;
  MPI_Comm solo_comm;
  check_mpi(MPI_Comm_split(comm.get(), comm.is_root() ? 0 : MPI_UNDEFINED, 0, &solo_comm), "MPI_Comm_split");
  if (comm.is_root()) {
    {
      const Communicator solo(solo_comm);
      GraphOptions o;
      o.graph = graph;
      const DistributedGraph g = load_graph(solo, o);
      const CsrView view{g.row_ptr.data(), g.col.data(), g.n_local()};
      Timer t;
      const auto hops1 = baseline_walks_one_at_a_time(view, walkers, p, seed);
      b.one_at_a_time = static_cast<double>(hops1) / t.seconds();
      t.reset();
      const auto hops2 = baseline_walks_interleaved(view, walkers, p, seed);
      b.interleaved = static_cast<double>(hops2) / t.seconds();
    }
    MPI_Comm_free(&solo_comm);
  }
  comm.broadcast(b);
  return b;
}

}  // namespace

int run_bench(const CommandContext& ctx, BenchWalksOptions& options) {
  const Communicator& comm = ctx.comm;
  std::vector<std::string> graphs;
  std::vector<std::int64_t> walker_counts;
  std::vector<double> p_values;
  std::vector<Coupling> couplings;
  std::vector<int> sigma;
  collective_try(comm, [&] {
    for (const auto& c : split_list(options.couplings, ',')) couplings.push_back(parse_coupling(c));
    sigma = parse_sigma(options.sigma_permutation, "--sigma-permutation");
    graphs = split_list(options.graphs, ';');
    walker_counts = walkers_list_from(options.walkers_list);
    p_values = p_halt_list_from(options.p_halt_list);
    for (const auto& g : graphs)
      if (!is_generated_graph(g)) throw InputError("--graphs: the benchmark takes generated graphs (got '" + g + "')");
  });
  const std::int64_t repeats = options.walk_repeats;
  const std::int64_t grf_repeats = options.grf_repeats;
  const LengthResolvedRows length_resolved = options.by_length ? LengthResolvedRows::keep : LengthResolvedRows::drop;
  collective_try(comm, [&] {
    if (repeats < 1) throw InputError("--walk-repeats: must be at least 1 (got " + std::to_string(repeats) + ")");
    if (grf_repeats < 1) throw InputError("--grf-repeats: must be at least 1 (got " + std::to_string(grf_repeats) + ")");
    if (options.host_size < 0) throw InputError("--host-size: must be 0 (each machine) or a number of ranks >= 1");
  });
  const Log& log = ctx.log;
  const int p = comm.size();
  for (const auto& spec : graphs) {
    GraphOptions o;
    o.graph = spec;
    o.partition = options.partition;
    o.host_size = options.host_size;
    o.replicate_graph = options.replicate_graph;
    Timer load_timer;
    const DistributedGraph g = load_graph(comm, o);
    const double load_seconds = comm.max(load_timer.seconds());
    // The walk engine's arc table, built once per graph as `grf` builds it once per run: every phase below
    // (all walker counts, halting probabilities and couplings) walks on it. It depends only on the weights and
    // step rule, the defaults here.
    const WalkArcs arcs(g, WalkOptions{});
    log.result("bench=load graph=" + spec + " partition=" + o.partition + " ranks=" + std::to_string(p) + " nodes=" + std::to_string(g.n_global()) +
               " edges=" + std::to_string(g.n_edges_global) + " load_seconds=" + fmt(g.report.read_seconds + g.report.assemble_seconds, 3) +
               " partition_seconds=" + fmt(g.report.partition_seconds, 3) + " total_seconds=" + fmt(load_seconds, 3) +
               " arc_table_seconds=" + fmt(comm.max(arcs.build_seconds()), 3));
    for (const auto n : walker_counts)
      for (const double ph : p_values) {
        Baselines base;
        if (!options.no_baselines) base = run_baselines(comm, spec, n, ph, options.seed);
        // Pair couplings need an even walker count.
        std::vector<Coupling> active;
        for (const Coupling coupling : couplings)
          if (termination_of(coupling) == Termination::iid || n % 2 == 0) active.push_back(coupling);
        auto options_for = [&](Coupling coupling) {
          WalkOptions walk;
          walk.coupling = coupling;
          if (termination_of(coupling) == Termination::sigma) walk.sigma = sigma;
          walk.walkers = n;
          walk.p_halt = ph;
          walk.max_length = options.max_length;
          walk.seed = options.seed;
          return walk;
        };
        // Walk phases alone (no deposit sink: walkers only move), round-robin over the couplings.
        std::vector<WalkStatistics> first_round(active.size());
        std::vector<std::vector<double>> rates(active.size()), idle(active.size()), waiting(active.size());
        for (std::int64_t round = 0; round < repeats; ++round)
          for (size_t k = 0; k < active.size(); ++k) {
            const WalkResult walks = run_walks(g, options_for(active[k]), log, WalkLimits{}, nullptr, &arcs);
            if (round == 0) first_round[k] = walks.stats;
            rates[k].push_back(static_cast<double>(walks.stats.hops) / walks.stats.walk_seconds);
            idle[k].push_back(comm.max(idle_share(walks.stats)));
            waiting[k].push_back(comm.max(waiting_share(walks.stats)));
          }
        const auto iid = std::find(active.begin(), active.end(), Coupling::iid);
        for (size_t k = 0; k < active.size(); ++k) {
          const Coupling coupling = active[k];
          const WalkOptions walk = options_for(coupling);
          const WalkStatistics& s = first_round[k];
          const double walk_rate = median_of(rates[k]);
          std::vector<double> per_hop_vs_iid;  // per round: this coupling's time per hop over iid's
          if (iid != active.end())
            for (std::int64_t round = 0; round < repeats; ++round)
              per_hop_vs_iid.push_back(rates[static_cast<size_t>(iid - active.begin())][static_cast<size_t>(round)] /
                                       rates[k][static_cast<size_t>(round)]);
          const double bytes_per_hop = static_cast<double>(comm.sum(s.bytes_sent)) / static_cast<double>(std::max<std::int64_t>(1, s.hops));
          // Crossings are hops onto another host's node (with --host-size 1, another rank's).
          const auto crossings = static_cast<double>(std::max<std::int64_t>(1, s.cross_rank_hops));
          std::int64_t grf_bytes = 0;
          // The whole GRF construction as `grf` does it: walks, deposits to start owners, Phi (and M_t with
          // --by-length).
          // Its peak memory per rank is measured on its own, against graph + output held + in-flight cap.
          KernelSpec kernel;
          GrfMemory estimate = estimate_grf_memory(g, walk, WalkLimits{}, 1, length_resolved);
          std::vector<double> grf_rates, grf_idle, grf_waiting;
          double mem = 0, bound_mib = 0;
          bool peak_reset = true;
          double grf_wall = 0, grf_kernel = 0;  // this rank's, over the rounds
          for (std::int64_t round = 0; round < grf_repeats; ++round) {
            peak_reset = reset_peak_memory() && peak_reset;
            const double kernel_before = kernel_cpu_seconds();
            Timer grf_timer;
            const GrfRun run = compute_grf(g, kernel, walk, GrfEstimator::symmetric, log, WalkLimits{}, length_resolved, &arcs);
            grf_wall += grf_timer.seconds();
            grf_kernel += kernel_cpu_seconds() - kernel_before;
            const double seconds = comm.max(grf_timer.seconds());
            grf_rates.push_back(static_cast<double>(run.walks[0].hops) / seconds);
            grf_idle.push_back(comm.max(idle_share(run.walks[0])));
            grf_waiting.push_back(comm.max(waiting_share(run.walks[0])));
            grf_bytes = comm.sum(run.walks[0].bytes_sent);
            mem = std::max(mem, own_peak_memory_mib());  // the host's shared table once per host, as the bound
            bound_mib = comm.max(grf_memory_with_output(estimate, run).total()) / kMiB;
          }
          const double grf_rate = median_of(grf_rates);
          const double grf_seconds = static_cast<double>(s.hops) / grf_rate;
          std::ostringstream line;
          line << "bench=walks graph=" << spec << " ranks=" << p << " walkers=" << n << " p_halt=" << ph
               << " coupling=" << coupling_name(coupling) << " hops=" << s.hops
               << " walk_seconds=" << fmt(s.walk_seconds, 3) << " walk_hops_per_s=" << fmt(walk_rate / 1e6, 2) << "M"
               << " walk_hops_per_s_per_rank=" << fmt(walk_rate / p / 1e6, 2) << "M"
               << " cross_rank_share=" << fmt(static_cast<double>(s.cross_rank_hops) / static_cast<double>(s.hops), 3)
               << " bytes_per_hop=" << fmt(bytes_per_hop, 3) << " crossings=" << s.cross_rank_hops
               << " walk_bytes_per_crossing=" << fmt(static_cast<double>(comm.sum(s.bytes_sent)) / crossings, 1)
               << " grf_bytes_per_crossing=" << fmt(static_cast<double>(grf_bytes) / crossings, 1)
               << " grf_seconds=" << fmt(grf_seconds, 3)
               << " grf_hops_per_s=" << fmt(grf_rate / 1e6, 2) << "M"
               << " grf_kernel_share=" << fmt(comm.max(grf_kernel / grf_wall), 2)
               << " walk_idle_max=" << fmt(median_of(idle[k]), 3) << " grf_idle_max=" << fmt(median_of(grf_idle), 3)
               << " walk_wait_max=" << fmt(median_of(waiting[k]), 3) << " grf_wait_max=" << fmt(median_of(grf_waiting), 3)
               << " walk_queue_max=" << comm.max(s.max_queued)
               << " peak_mib_min=" << fmt(comm.min(mem), 0) << " peak_mib_avg=" << fmt(comm.sum(mem) / p, 0)
               << " peak_mib_max=" << fmt(comm.max(mem), 0) << " peak_reset=" << (comm.min(peak_reset ? 1 : 0) ? "yes" : "no")
               << " memory_estimate_mib=" << fmt(comm.max(estimate.total()) / kMiB, 0) << " memory_bound_mib="
               << fmt(bound_mib, 0) << " peak_vs_bound=" << fmt(comm.max(mem) / bound_mib, 2);
          if (base.interleaved > 0)
            line << " baseline_single=" << fmt(base.one_at_a_time / 1e6, 2) << "M baseline_interleaved="
                 << fmt(base.interleaved / 1e6, 2) << "M walk_vs_interleaved=" << fmt(walk_rate / base.interleaved, 2)
                 << " grf_vs_interleaved=" << fmt(grf_rate / base.interleaved, 2)
                 // Rank-seconds beyond what the hops cost at the interleaved loop's rate, per crossing: what a
                 // crossing between hosts costs on top of a hop (messages, queues, idle waits).
                 << " walk_ns_per_crossing=" << fmt(1e9 * (p / walk_rate - 1 / base.interleaved) * static_cast<double>(s.hops) / crossings, 1);
          line << " walk_repeats=" << repeats << " grf_repeats=" << grf_repeats << " by_length=" << (length_resolved == LengthResolvedRows::keep ? "yes" : "no");
          if (!per_hop_vs_iid.empty() && coupling != Coupling::iid)
            line << " per_hop_vs_iid=" << fmt(median_of(per_hop_vs_iid), 2);
          log.result(line.str());
        }
      }
  }
  return 0;
}

Command bench_walks_command() {
  return make_command<BenchWalksOptions>("bench-walks",
                                         "benchmark: distributed walks and GRF construction vs plain single-thread loops",
                                         declare_bench_walks_options, run_bench);
}

}  // namespace graphrf
