#pragma once
// `graphrf <command> [options]`: command dispatch, per-command --help, --config FILE.ini (the command line
// wins), --dump-config and --quiet, shared by every command.
#include <boost/program_options.hpp>
#include <functional>
#include <string>
#include <vector>

#include "graphrf/mpi/communicator.hpp"
#include "graphrf/graph/distributed_graph.hpp"
#include "graphrf/io/graph_options.hpp"
#include "graphrf/mpi/log.hpp"

namespace graphrf {

namespace po = boost::program_options;

// What a command gets once its options are parsed.
struct CommandContext {
  const Communicator& comm;
  const po::variables_map& vm;
  const Log& log;
  std::string command_line;  // argv joined, for provenance
  std::string config_text;   // the effective configuration as INI, for /config
};

struct Command {
  std::string name;
  std::string summary;
  std::function<void(po::options_description&)> add_options;
  std::function<int(const CommandContext&)> run;
};

const std::vector<Command>& commands();
int run_cli(const Communicator& comm, int argc, char** argv);

// The --graph family shared by commands that load a graph.
void add_graph_options(po::options_description& desc);
GraphOptions graph_options_from(const po::variables_map& vm);

// The start of every compute command: check that --out can be written (before any work), load and
// partition the graph, refuse --reference beyond the dense limit, and log the graph.
DistributedGraph load_graph_for_command(const CommandContext& ctx, const GraphOptions& options,
                                        const std::string& out_path, bool reference);

// The non-empty items of a `sep`-separated list option (e.g. --graphs a;b, --couplings iid,sigma).
std::vector<std::string> split_list(const std::string& text, char sep);

// Fails when Slurm started N independent single-rank jobs (srun without a working PMIx plugin).
void check_slurm_launch(const Communicator& comm);

}  // namespace graphrf

#include "graphrf/grf/kernel.hpp"
#include "graphrf/walks/walk_options.hpp"

namespace graphrf {

// --kernel, --beta, --power, --shift, --alpha, --f (shared by grf, attention and wavelet).
void add_kernel_options(po::options_description& desc);
KernelSpec kernel_spec_from(const po::variables_map& vm);
// --walkers, --p-halt, --max-length, --seed, --coupling, --sigma, --step, --weights, --scale.
void add_walk_options(po::options_description& desc);
// --coupling, --sigma (part of the walk options; also used alone by commands with their own walk defaults).
void add_coupling_options(po::options_description& desc);
void read_coupling_options(const po::variables_map& vm, WalkOptions& o);
WalkOptions walk_options_from(const po::variables_map& vm);

}  // namespace graphrf
