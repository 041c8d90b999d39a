// graphrf-partition: graph in, k parts out. Writes one part id per line in canonical node order (ascending
// node id), which `graphrf ... --partition file:PATH` reads back, and prints edge cut and balance. Runs on
// any number of ranks; the part count need not equal the rank count.
#include <sys/stat.h>

#include <boost/program_options.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <sstream>

#include "graphrf/core/fault_injection.hpp"
#include "graphrf/core/interrupt.hpp"
#include "graphrf/core/run_phase.hpp"
#include "graphrf/io/canonical_graph.hpp"
#include "graphrf/io/h5_output.hpp"
#include "graphrf/cli/cli.hpp"
#include "graphrf/mpi/main_guard.hpp"
#include "graphrf/mpi/mpi_environment.hpp"
#include "graphrf/partition/partitioner.hpp"
#include "graphrf/core/timer.hpp"
#include "graphrf/version.hpp"

namespace po = boost::program_options;
using namespace graphrf;

namespace {

// Each rank writes its block of lines at its byte offset (MPI-IO), so no rank holds the whole assignment. Every
// write is checked (error code and byte count) and rank 0 checks the finished size, so a full disk is an error
// on every rank, not a truncated file; the run's temporary file (graphrf/io/output_file.hpp) is renamed only
// when the whole file is there and no rank received a termination signal meanwhile.
void write_parts(const Communicator& comm, const std::string& path, const std::string& header, const std::vector<int>& part) {
  const OutputWindow interrupt_window;
  const RunPhase phase("writing " + path);
  std::string text = comm.is_root() ? header : std::string();
  for (int q : part) text += std::to_string(q) + '\n';
  const auto offset = comm.exscan_sum(static_cast<std::int64_t>(text.size()));
  const auto total = comm.sum(static_cast<std::int64_t>(text.size()));
  OutputTemporary temporary(comm, path);  // removed by its destructor unless published
  const std::string& partial = temporary.path();
  const std::string cannot_write = "--out " + path + ": cannot write " + partial + ": ";
  // The MPI-IO handle closes itself if anything below throws.
  struct MpiFile {
    MPI_File handle = MPI_FILE_NULL;
    ~MpiFile() {
      if (handle != MPI_FILE_NULL) MPI_File_close(&handle);
    }
  } file;
  collective_try(comm, [&] {
    check_mpi(MPI_File_open(comm.get(), partial.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &file.handle),
              ("MPI_File_open " + partial).c_str());
  });
  // MPI_File_set_size is collective: every rank calls it (a root-only call hung every run on 2+ ranks); the
  // barrier keeps every write after the truncation.
  check_mpi(MPI_File_set_size(file.handle, 0), "MPI_File_set_size");
  comm.barrier();
  // MPI_File_sync is collective: every rank reaches it, whatever its writes did, before errors are agreed on.
  std::string write_error;
  constexpr std::int64_t kChunk = std::int64_t{1} << 30;
  for (std::int64_t done = 0; write_error.empty() && done < static_cast<std::int64_t>(text.size()); done += kChunk) {
    const auto n = std::min<std::int64_t>(kChunk, static_cast<std::int64_t>(text.size()) - done);
    MPI_Status status;
    const int code = MPI_File_write_at(file.handle, offset + done, text.data() + done, static_cast<int>(n), MPI_BYTE, &status);
    int written = 0;
    if (code == MPI_SUCCESS) MPI_Get_count(&status, MPI_BYTE, &written);
    if (code != MPI_SUCCESS || written != n)
      write_error = cannot_write + "wrote " + std::to_string(code == MPI_SUCCESS ? written : 0) + " of " +
                    std::to_string(n) + " bytes at offset " + std::to_string(offset + done) + " (" +
                    (code == MPI_SUCCESS ? std::string("short write") : mpi_error_text(code)) + "; disk full?)";
  }
  const int sync_code = MPI_File_sync(file.handle);
  if (write_error.empty() && sync_code != MPI_SUCCESS)
    write_error = cannot_write + "flush failed (" + mpi_error_text(sync_code) + "; disk full?)";
  collective_try(comm, [&] {
    if (!write_error.empty()) throw InputError(write_error);
  });
  check_mpi(MPI_File_close(&file.handle), "MPI_File_close");
  fault_injection_pause_before_commit(path.c_str());
  collective_try(comm, [&] {
    if (!comm.is_root()) return;
    struct stat st {};
    if (::stat(partial.c_str(), &st) != 0) throw InputError(cannot_write + std::strerror(errno));
    if (st.st_size != total)
      throw InputError(cannot_write + "the file has " + std::to_string(st.st_size) + " of " + std::to_string(total) +
                       " bytes (disk full?)");
  });
  // Decided together before the rename: a run interrupted on any rank does not publish its file.
  if (const int signal = comm.max(interrupt_signal()); signal != 0)
    throw InputError(std::string("interrupted by ") + signal_name(signal) + " while writing: --out " + path +
                         " not written (an existing file there is unchanged)",
                     /*collective=*/true);
  collective_try(comm, [&] {
    if (!comm.is_root()) return;
    if (const std::string error = temporary.publish(); !error.empty())
      throw InputError("--out " + path + ": cannot create file: " + error);
  });
}

int run(const Communicator& comm, int argc, char** argv) {
  po::options_description desc("graphrf-partition options");
  GraphArguments graph_arguments;
  add_graph_options(desc, graph_arguments);
  desc.add_options()
      ("help,h", "print this help")
      ("version", "print the version and exit")
      ("parts,k", po::value<int>(), "number of parts (default: the number of ranks)")
      ("method", po::value<std::string>()->default_value("metis"), "metis | ptscotch | block (--partition says the same)")
      ("out,o", po::value<std::string>(), "write the assignment here (one part id per line)")
      ("quiet,q", po::bool_switch(), "print only the RESULT line");
  po::variables_map vm;
  GraphOptions options;
  int parts = comm.size();
  std::string method, out;
  bool help = false;
  collective_try(comm, [&] {
    try {
      const po::parsed_options parsed = po::command_line_parser(argc, argv).options(desc).style(kNoGuessing).run();
      po::store(parsed, vm);
      check_parsed_arguments(parsed, vm, "");
      po::notify(vm);
    } catch (const po::unknown_option& e) {
      throw InputError(unknown_option_message(e.get_option_name(), desc, "(graphrf-partition --help lists the options)"));
    } catch (const po::error& e) {
      throw InputError(std::string(e.what()) + " (graphrf-partition --help lists the options)");
    }
    help = vm.count("help") > 0 || vm.count("version") > 0;
    if (help) return;
    check_slurm_launch(comm);
    options = graph_options_from(graph_arguments);
    if (vm.count("parts")) parts = vm["parts"].as<int>();
    if (parts < 1) throw InputError("--parts: must be >= 1 (got " + std::to_string(parts) + ")");
    method = vm["method"].as<std::string>();
    // --partition (the option of every graphrf command) names the method too: honour it, refuse a conflict.
    if (!vm["partition"].defaulted()) {
      const std::string partition = vm["partition"].as<std::string>();
      if (!vm["method"].defaulted() && partition != method)
        throw InputError("--partition " + partition + " and --method " + method + ": give one of them");
      method = partition;
    }
    if (method != "metis" && method != "ptscotch" && method != "block")
      throw InputError(std::string(vm["partition"].defaulted() ? "--method" : "--partition") +
                       ": expected metis, ptscotch or block (got '" + method + "')");
    if (vm.count("out")) {
      out = vm["out"].as<std::string>();
      if (out.empty()) throw InputError("--out: the file name is empty (leave --out out to write nothing)");
    }
  });
  if (vm.count("version")) {
    if (comm.is_root()) std::cout << "graphrf-partition " << kVersion << " (" << kGitSha << ")\n";
    return 0;
  }
  if (help) {
    if (comm.is_root()) std::cout << "usage: graphrf-partition --graph G --parts K --out FILE\n\n" << desc << "\n";
    return 0;
  }
  const Log log(comm, vm["quiet"].as<bool>());
  if (!out.empty()) check_output_writable(comm, out, command_inputs(vm));  // before any work: a directory or unwritable path fails now
  const RunPhase phase("loading " + options.graph);
  const CanonicalGraph graph = assemble_canonical_graph(comm, read_arcs(comm, options), options.duplicates);
  if (parts > graph.dist.total())
    throw InputError("--parts " + std::to_string(parts) + ": more parts than the graph's " +
                         std::to_string(graph.dist.total()) + " nodes (some parts would be empty)",
                     /*collective=*/true);
  if (method == "metis") check_metis_fits(comm, graph, parts, options.memory_limit, /*report=*/true);
  if (method == "ptscotch") check_ptscotch_fits(comm, graph, parts, options.memory_limit, /*report=*/true);
  Timer timer;
  const auto part = compute_partition(comm, graph, method, parts);
  const double seconds = comm.max(timer.seconds());
  const auto q = partition_quality(comm, graph, part, parts);
  const double cut_share = 100.0 * static_cast<double>(q.edge_cut) / static_cast<double>(graph.n_edges_global);
  log.info("graph      " + graph.report.source + ": " + std::to_string(graph.dist.total()) + " nodes, " +
           std::to_string(graph.n_edges_global) + " edges");
  log.info("partition  " + method + " into " + std::to_string(parts) + " parts in " + fmt(seconds) + " s: edge cut " +
           std::to_string(q.edge_cut) + " (" + fmt(cut_share, 2) + "%), balance nodes " + fmt(q.node_balance) +
           " arcs " + fmt(q.arc_balance));
  if (!out.empty()) {
    std::ostringstream header;
    header << "# graphrf-partition: " << graph.dist.total() << " nodes, " << parts << " parts, method " << method
           << ", edge cut " << q.edge_cut << "; one part id per line in ascending node-id order\n";
    write_parts(comm, out, header.str(), part);
    log.info("wrote      " + out);
  }
  std::ostringstream result;
  result << "parts=" << parts << " edge_cut=" << q.edge_cut << " node_balance=" << fmt(q.node_balance, 4)
         << " arc_balance=" << fmt(q.arc_balance, 4) << " partition_seconds=" << fmt(seconds, 4);
  log.result(result.str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  MpiEnvironment env(argc, argv);
  const Communicator world(MPI_COMM_WORLD);
  return run_guarded("graphrf-partition", world, [&] {
    try {
      return run(world, argc, argv);
    } catch (const InputError& e) {
      // The library names fields (graph.format); the user reads the flags (--format).
      throw InputError(with_option_flags(e.what()), e.collective());
    }
  });
}
