#pragma once
// `graphrf <command> [options]`: command dispatch, per-command --help, --config FILE.ini (the command line
// wins), --dump-config and --quiet, shared by every command.
#include <boost/program_options.hpp>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "graphrf/cli/help.hpp"
#include "graphrf/mpi/communicator.hpp"
#include "graphrf/points/point_graph.hpp"
#include "graphrf/graph/distributed_graph.hpp"
#include "graphrf/io/graph_options.hpp"
#include "graphrf/cli/option_fields.hpp"
#include "graphrf/io/output_file.hpp"
#include "graphrf/mpi/log.hpp"

namespace graphrf {

namespace po = boost::program_options;

// Command-line style without Boost's guessing of abbreviated option names (`--walk 4` is an error, not
// --walkers): an abbreviation silently changes meaning when an option is added.
inline constexpr int kNoGuessing = po::command_line_style::default_style & ~po::command_line_style::allow_guessing;

// What a command gets once its options are parsed.
struct CommandContext {
  const Communicator& comm;
  const po::variables_map& vm;
  const Log& log;
  std::string command_line;  // argv joined, for provenance
  std::string config_text;   // the effective configuration as INI, for /config
};

// A command: its name, its one-line summary, and `bind`, which creates the command's options object, declares
// every option bound to the field it fills, and returns the run reading that object (alive from the parse,
// through po::notify which fills the fields, to the end of the run). make_command builds one.
struct Command {
  std::string name;
  std::string summary;
  std::function<std::function<int(const CommandContext&)>(po::options_description&)> bind;
};

// The command whose `declare(desc, options)` binds its options to the fields of one Options object and whose
// `run(ctx, options)` reads them (after po::notify; conversions of text, e.g. enums and lists, are made by the
// functions next to the declarations, called at the start of the run so their errors name INI lines too).
template <class Options>
Command make_command(std::string name, std::string summary,
                     std::function<void(po::options_description&, Options&)> declare,
                     std::function<int(const CommandContext&, Options&)> run) {
  return {std::move(name), std::move(summary), [declare, run](po::options_description& desc) {
            auto options = std::make_shared<Options>();
            declare(desc, *options);
            return std::function<int(const CommandContext&)>(
                [options, run](const CommandContext& ctx) { return run(ctx, *options); });
          }};
}

// An option without a default, bound to `field`: set by po::notify when given, empty otherwise.
template <class T>
po::typed_value<T>* optional_value(std::optional<T>* field) {
  return po::value<T>()->notifier([field](const T& value) { *field = value; });
}

// A value bound to `field` that also sets `*given` when the command line or the INI file gives it, even at its
// default (Boost parses given values only; it stores a default without parsing it).
template <class T>
class GivenValue : public po::typed_value<T> {
 public:
  GivenValue(T* field, bool* given) : po::typed_value<T>(field), given_(given) {}
  void xparse(boost::any& value_store, const std::vector<std::string>& tokens) const override {
    *given_ = true;
    po::typed_value<T>::xparse(value_store, tokens);
  }

 private:
  bool* given_;
};
template <class T>
po::typed_value<T>* given_value(T* field, bool* given) {
  return new GivenValue<T>(field, given);
}

const std::vector<Command>& commands();
int run_cli(const Communicator& comm, int argc, char** argv);

// The --graph family shared by commands that load a graph, bound: the fields of GraphOptions and
// PointGraphOptions taken as given, the rest as written (checked by graph_options_from and
// point_graph_options_from).
struct GraphArguments {
  GraphOptions options;        // --graph, --format, --partition, --keep-self-loops, --weight-column
  PointGraphOptions points;    // --knn, --radius, --edge-sigma
  std::string duplicates, ids, points_format, knn_mode, edge_weight;
  std::optional<std::string> points_path, memory_limit;  // --points, --memory-limit
};
void add_graph_options(po::options_description& desc, GraphArguments& a);
GraphOptions graph_options_from(const GraphArguments& a);
// --knn, --radius, --knn-mode, --edge-weight, --edge-sigma (InputError naming the option).
PointGraphOptions point_graph_options_from(const GraphArguments& a);

// Collective: InputError "OPTION PATH: cannot open: REASON" unless the file can be read. For inputs named by
// options (--qkv, partition files), checked before the graph is loaded.
void check_input_readable(const Communicator& comm, const std::string& option, const std::string& path);

// The input files the options of `vm` name (--config, --graph, --points, --qkv, --frames, --observations, --test,
// --sigma, --pagerank-sigma, --partition file:PATH), for check_output_writable: --out must be none of them.
std::vector<NamedInput> command_inputs(const po::variables_map& vm);

// The graph of --points (built on the cloud) or of --graph (read or generated); refuses the options of the
// source not taken. Collective.
DistributedGraph load_command_graph(const CommandContext& ctx, const GraphArguments& arguments,
                                    const GraphOptions& options);
// The start of every compute command: check that --out can be written (before any work), load and
// partition the graph, and log the graph.
DistributedGraph load_graph_for_command(const CommandContext& ctx, const GraphArguments& arguments,
                                        const GraphOptions& options, const std::string& out_path);

// The non-empty items of a `sep`-separated list option (e.g. --graphs a;b, --couplings iid,sigma).
std::vector<std::string> split_list(const std::string& text, char sep);
// The benchmarks' --walkers-list and --p-halt-list: each item checked as --walkers and --p-halt check theirs
// (InputError naming the list option and the item).
std::vector<std::int64_t> walkers_list_from(const std::string& text);
std::vector<double> p_halt_list_from(const std::string& text);

// Refuses what Boost would accept silently: stray positional words and a sign on unsigned options (-1 would
// become 2^64 - 1). `where` prefixes the message (e.g. "FILE:LINE: " for INI lines, "" for the command line).
void check_parsed_arguments(const po::parsed_options& parsed, const po::variables_map& vm, const std::string& where);

// Where each option an INI file set comes from: option name -> "FILE:LINE".
using ConfigOrigins = std::map<std::string, std::string>;

// Stores the options of an INI file into vm (the command line, stored first, wins). Every error names
// FILE:LINE: unknown options, lines that are not 'name = value', sections, repeated keys, invalid values.
// Returns the origins of the values it set, for the checks commands make later (config_origin).
ConfigOrigins store_config_file(const std::string& path, const po::options_description& desc, po::variables_map& vm);

// For an error message "--NAME..." about an option the INI file set: that line's "FILE:LINE" ("" otherwise).
std::string config_origin(const std::string& message, const ConfigOrigins& origins);

// Fails when Slurm started N independent single-rank jobs (srun without a working PMIx plugin).
void check_slurm_launch(const Communicator& comm);

}  // namespace graphrf

#include "graphrf/grf/kernel.hpp"
#include "graphrf/reference/reference_plan.hpp"
#include "graphrf/walks/walk_options.hpp"

namespace graphrf {

// --kernel, --beta, --power, --shift, --alpha, --f (shared by grf, attention and wavelet), bound: beta, power
// and shift into the spec, the rest as written (checked by kernel_spec_from).
struct KernelArguments {
  KernelSpec spec;  // --beta, --power, --shift
  std::string kernel;
  std::optional<std::string> alpha, f;
};
void add_kernel_options(po::options_description& desc, KernelArguments& a);
// `weights` is --weights of the command's walks ("" without walk options): combinatorial refuses
// exp-adjacency and p-step.
KernelSpec kernel_spec_from(const KernelArguments& a, const std::string& weights = "");
// --coupling, --sigma (part of the walk options; also used alone by commands with their own walk defaults).
struct CouplingArguments {
  std::string coupling;
  std::optional<std::string> sigma;  // a file
};
void add_coupling_options(po::options_description& desc, CouplingArguments& a);
void read_coupling_options(const CouplingArguments& a, WalkOptions& o);
// --walkers, --p-halt, --max-length, --fixed-length, --seed, --coupling, --sigma, --step, --weights, --scale,
// bound: walkers, p_halt, max_length, seed and scale into the options, the rest as written.
struct WalkArguments {
  WalkOptions options;
  CouplingArguments coupling;
  std::string step, weights;
  std::optional<std::int64_t> fixed_length;
  bool halting_given = false;  // --p-halt or --max-length given (--fixed-length replaces them)
};
void add_walk_options(po::options_description& desc, WalkArguments& a);
// Checked (validate); --fixed-length refuses --p-halt and --max-length given with it (halting_given).
WalkOptions walk_options_from(const WalkArguments& a);
// --reference, --dense-reference-max, --reference-samples; `what` says what the reference checks.
void add_reference_options(po::options_description& desc, ReferenceOptions& o, const std::string& what);
// Checks the bound options (validate) and returns them.
ReferenceOptions reference_options_from(const ReferenceOptions& o);
// --weights combinatorial, after the graph is loaded: walks on W = I - (D - A)/d_max and kernels of L = D - A
// (bind_combinatorial_laplacian); says d_max and the walk's beta * d_max on rank 0, and warns in one line when
// the series needs more terms than --max-length or than walks reach easily. Nothing for the other modes.
// Collective.
void bind_walk_weights(const Log& log, const DistributedGraph& g, WalkOptions& walk, KernelSpec& kernel);
// Refuses (collectively) a reference this graph cannot have: the sampled reference needs normalised or
// combinatorial weights.
void check_reference_plan(const DistributedGraph& g, const ReferenceOptions& reference, const WalkOptions& walk);
// Collective: InputError "<what> is dense, at most 5000 nodes (the graph has N)" when g is too large for a dense
// N x N computation on one rank.
void check_dense_size(const DistributedGraph& g, const std::string& what);

}  // namespace graphrf
