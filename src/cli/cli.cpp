#include "graphrf/cli/cli.hpp"
#include "graphrf/cli/commands.hpp"

#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "graphrf/core/memory_budget.hpp"
#include "graphrf/core/memory_size.hpp"
#include "graphrf/io/arc_input.hpp"
#include "graphrf/mpi/memory_limit.hpp"
#include "graphrf/mpi/phase_progress.hpp"
#include "graphrf/partition/partitioner.hpp"
#include "graphrf/version.hpp"

namespace graphrf {

const std::vector<Command>& commands() {
  static const std::vector<Command> list = {info_command(),           grf_command(),           pagerank_command(),
                                            couple_command(),         attention_command(),     wavelet_command(),
                                            gp_command(),             bench_walks_command(),   bench_couplings_command(),
                                            bench_attention_command(), bench_features_command(), bench_points_command(), bench_output_command(),
                                            bench_wavelet_command()};
  return list;
}

void add_graph_options(po::options_description& desc, GraphArguments& a) {
  po::options_description group("graph");
  group.add_options()
      ("graph", po::value(&a.options.graph)->default_value("grid:32x32"),
       "graph: a file, grid:RxC or random:N:MEAN_DEGREE[:SEED] (default: the embedded 32x32 grid)")
      ("format", po::value(&a.options.format)->default_value("auto"), "auto|edgelist|mtx|metis|dimacs|obj|gml|ply|off|stl|hdf5 (graphrf's own /graph)")
      ("partition", po::value(&a.options.partition)->default_value("block"), "block|metis|ptscotch|file:PATH")
      ("host-size", po::value(&a.options.host_size)->default_value(0),
       "ranks per host, which share the graph in memory (messages only between hosts): 0 = each machine as MPI "
       "reports it, 1 = every rank its own host, K = hosts of K consecutive ranks of a machine")
      ("replicate-graph", po::bool_switch(&a.options.replicate_graph),
       "every host keeps the whole graph for walks (32 bytes an arc), so walkers never leave their host: for graphs "
       "that fit on one machine and cut poorly (social, citation, web)")
      ("duplicates", po::value(&a.duplicates)->default_value("max"), "how repeated arcs combine: sum|max|error")
      ("keep-self-loops", po::bool_switch(&a.options.keep_self_loops), "keep self-loops (dropped by default)")
      ("weight-column", po::value(&a.options.weight_column)->default_value(0),
       "edge lists: 1-based weight column (0 = automatic, -1 = unweighted)")
      ("points", optional_value(&a.points_path),
       "build the graph on a point cloud instead of --graph: HDF5 (/points N x d, optional /nodes/id), PLY, XYZ/CSV")
      ("points-format", po::value(&a.points_format)->default_value("auto"), "auto|h5|ply|xyz")
      ("knn", po::value(&a.points.knn)->default_value(0), "with --points: exact k-nearest-neighbour graph (ties by id)")
      ("knn-mode", po::value(&a.knn_mode)->default_value("union"), "union (i in kNN(j) or j in kNN(i)) | mutual (both)")
      ("radius", double_value(&a.points.radius, 0.0), "with --points: all pairs at distance <= r")
      ("edge-weight", po::value(&a.edge_weight)->default_value("one"), "one | gaussian (exp(-d^2/2s^2)) | inverse (1/d)")
      ("edge-sigma", double_value(&a.points.sigma, 1.0), "s of --edge-weight gaussian")
      ("ids", po::value(&a.ids)->default_value("auto"),
       "edge-list node ids: auto (decided by the first edge line: integer when its ids are, else string), integer, or "
       "string (names, ordered by their bytes; /nodes/id becomes 0..N-1 and /nodes/name holds the names)")
      ("memory-limit", optional_value(&a.memory_limit),
       "memory per rank this run may use, e.g. 4G or 512M (default: the node's available memory plus what the run's "
       "ranks there already hold, divided among them); inputs and runs that need more are refused before any work");
  desc.add(group);
}

GraphOptions graph_options_from(const GraphArguments& a) {
  GraphOptions o = a.options;
  // Here, among the other option checks every rank makes together: later, after the graph is loaded, a bad
  // name would be thrown on each rank alone (one error line per rank and MPI_Abort).
  validate_partition_spec(o.partition);
  if (o.host_size < 0)
    throw InputError("--host-size " + std::to_string(o.host_size) + ": must be 0 (each machine as MPI reports it) or a "
                     "number of ranks >= 1");
  o.duplicates = parse_duplicate_policy(a.duplicates);
  o.ids = parse_id_mode(a.ids);
  if (o.ids == IdMode::string && is_generated_graph(o.graph))
    throw InputError("--ids string applies to edge-list files; " + o.graph + " is a generated graph with integer ids");
  if (a.memory_limit) o.memory_limit = parse_memory_size(*a.memory_limit, "--memory-limit");
  return o;
}

void check_slurm_launch(const Communicator& comm) {
  // Only srun steps carry SLURM_STEP_NUM_TASKS. The batch script itself (and an salloc shell) has
  // SLURM_NTASKS = the allocation's task count but is one process: a serial run there (validation with
  // --dump-config, `graphrf info`) is legitimate and must not be mistaken for N lone ranks.
  const char* tasks = std::getenv("SLURM_STEP_NUM_TASKS");
  const bool launched_by_mpirun = std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr;
  if (!tasks || launched_by_mpirun || comm.size() != 1) return;
  const long n = std::strtol(tasks, nullptr, 10);
  if (n > 1)
    throw InputError("Slurm started " + std::to_string(n) +
                     " tasks but MPI sees 1 rank: each task runs alone. Launch with `srun --mpi=pmix` "
                     "(Open MPI needs PMIx; --mpi=pmi2 does not work) or with mpirun inside the allocation");
}

namespace {

std::string any_to_string(const boost::any& v) {
  if (auto p = boost::any_cast<std::string>(&v)) return *p;
  if (auto p = boost::any_cast<int>(&v)) return std::to_string(*p);
  if (auto p = boost::any_cast<std::int64_t>(&v)) return std::to_string(*p);
  if (auto p = boost::any_cast<std::uint64_t>(&v)) return std::to_string(*p);
  if (auto p = boost::any_cast<unsigned long long>(&v)) return std::to_string(*p);
  if (auto p = boost::any_cast<double>(&v)) {
    // The shortest text that reads back to the same double: 1e-12, not 9.9999999999999998e-13.
    char buf[64];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), *p);
    return ec == std::errc() ? std::string(buf, end) : "?";
  }
  if (auto p = boost::any_cast<bool>(&v)) return *p ? "true" : "false";
  return "?";
}

// The effective configuration as INI text: every option that has a value, defaults included.
std::string effective_config(const std::string& command, const po::options_description& desc,
                             const po::variables_map& vm) {
  std::ostringstream out;
  out << "# graphrf " << command << " configuration (graphrf " << kVersion << ", " << kGitSha << ")\n";
  for (const auto& opt : desc.options()) {
    const std::string& name = opt->long_name();
    if (name == "help" || name == "config" || name == "dump-config" || !vm.count(name)) continue;
    out << name << " = " << any_to_string(vm[name].value()) << "\n";
  }
  return out.str();
}

// Options whose values are paths: relative ones in an INI file resolve against the INI file's folder, so a
// configuration works from whatever folder the job starts in.
void print_usage(const Communicator& comm) {
  if (!comm.is_root()) return;
  std::cout << "graphrf " << kVersion << " (" << kGitSha << "): distributed graph random features\n\n"
            << "usage: graphrf <command> [options]    (graphrf <command> --help for its options)\n\ncommands:\n";
  size_t width = 0;
  for (const auto& c : commands()) width = std::max(width, c.name.size());
  for (const auto& c : commands()) std::cout << "  " << c.name << std::string(width + 2 - c.name.size(), ' ') << c.summary << "\n";
}

}  // namespace

int run_cli(const Communicator& comm, int argc, char** argv) {
  std::string command_line;
  for (int i = 0; i < argc; ++i) {
    if (i > 0) command_line += ' ';
    command_line += argv[i];
  }
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h" || std::string(argv[1]) == "help") {
    print_usage(comm);
    return argc < 2 ? 1 : 0;
  }
  if (std::string(argv[1]) == "--version") {
    if (comm.is_root()) std::cout << "graphrf " << kVersion << " (" << kGitSha << ")\n";
    return 0;
  }
  const std::string name = argv[1];
  const Command* command = nullptr;
  for (const auto& c : commands())
    if (c.name == name) command = &c;
  po::options_description desc(name);  // the caption of the command's own options in --help
  po::variables_map vm;
  bool help = false, dump = false;
  ConfigOrigins config_origins;
  std::function<int(const CommandContext&)> run_command;  // reads the options object bind declared
  std::uint64_t memory_limit_option = 0;
  collective_try(comm, [&] {
    if (!command) {
      std::vector<std::string> names;
      std::string list;
      for (const auto& c : commands()) names.push_back(c.name), list += (list.empty() ? "" : ", ") + c.name;
      const std::string close = closest_name(name, names);
      throw InputError("unknown command '" + name + "' (" + (close.empty() ? "" : "did you mean " + close + "? ") +
                       "expected one of: " + list + ")");
    }
    po::options_description run("run");
    run.add_options()
        ("help,h", "print this help")
        ("version", "print the version and exit")
        ("config", po::value<std::string>(), "read options from an INI file (the command line wins)")
        ("dump-config", po::bool_switch(), "print the effective configuration as INI and exit")
        ("quiet,q", po::bool_switch(), "no progress or summary on stdout (RESULT lines and warnings still print)");
    run_command = command->bind(desc);
    desc.add(run);
    try {
      const po::parsed_options parsed =
          po::command_line_parser(argc - 1, argv + 1).options(desc).style(kNoGuessing).run();
      po::store(parsed, vm);
      check_parsed_arguments(parsed, vm, "");
      if (vm.count("config")) config_origins = store_config_file(vm["config"].as<std::string>(), desc, vm);
      help = vm.count("help") > 0 || vm.count("version") > 0;
      if (!help) po::notify(vm);
    } catch (const po::unknown_option& e) {
      throw InputError(unknown_option_message(e.get_option_name(), desc, "(graphrf " + name + " --help lists the options)"));
    } catch (const po::error& e) {
      throw InputError(std::string(e.what()) + " (graphrf " + name + " --help lists the options)");
    }
    dump = !help && vm["dump-config"].as<bool>();
    // An empty name would otherwise mean "no output" and the run would write nothing without a word.
    if (!help && vm.count("out") && vm["out"].as<std::string>().empty())
      throw InputError("--out: the file name is empty (leave --out out to write nothing)");
    if (!help) check_slurm_launch(comm);
    if (!help && vm.count("memory-limit"))
      memory_limit_option = parse_memory_size(vm["memory-limit"].as<std::string>(), "--memory-limit");
  });
  if (vm.count("version")) {
    if (comm.is_root()) std::cout << "graphrf " << kVersion << " (" << kGitSha << ")\n";
    return 0;
  }
  if (help) {
    if (comm.is_root()) {
      std::cout << "usage: graphrf " << name << " [options]\n" << command->summary << "\n\n";
      print_option_groups(std::cout, desc);
    }
    return 0;
  }
  const std::string config = effective_config(name, desc, vm);
  if (dump) {
    if (comm.is_root()) std::cout << config;
    return 0;
  }
  const Log log(comm, vm["quiet"].as<bool>());
  // Readers refuse sizes declared in inputs beyond this before allocating them (graphrf/core/memory_budget.hpp).
  struct MemoryBudgetScope {
    explicit MemoryBudgetScope(std::uint64_t bytes) { set_memory_budget(bytes); }
    ~MemoryBudgetScope() { set_memory_budget(0); }
  } memory_budget_scope(memory_limit_per_rank(comm, memory_limit_option));
  // Long loops inside the library (generation, loading steps, attention passes) report through this log.
  struct ProgressLogScope {
    explicit ProgressLogScope(const Log& log) { set_phase_progress_log(&log); }
    ~ProgressLogScope() { set_phase_progress_log(nullptr); }
  } progress_scope(log);
  try {
    return run_command(CommandContext{comm, vm, log, command_line, config});
  } catch (const InputError& e) {
    // The library names fields; the user reads flags. Options are checked where they are used: an INI value
    // is named by its FILE:LINE there too.
    const std::string message = with_option_flags(e.what());
    const std::string origin = config_origin(message, config_origins);
    if (origin.empty() && message == e.what()) throw;
    throw InputError(origin.empty() ? message : origin + ": " + message, e.collective());
  }
}

}  // namespace graphrf
