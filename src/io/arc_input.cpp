#include "graphrf/io/arc_input.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "graphrf/core/timer.hpp"
#include "graphrf/io/gml_format.hpp"
#include "graphrf/mpi/phase_progress.hpp"
#include "graphrf/mpi/memory_limit.hpp"
#include "whole_file_input.hpp"

namespace graphrf {

namespace {


const char* file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a plain file";
}

// Checked with stat before opening: opening a FIFO with no writer would block forever, and devices or /proc
// files have no size to split the file by.
int open_regular_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw FileError(path + ": cannot open: " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) throw InputError("--graph " + path + ": not a regular file (" + file_kind(st.st_mode) + ")");
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) throw FileError(path + ": cannot open: " + std::strerror(errno));
  char byte = 0;
  if (st.st_size == 0 && ::read(fd, &byte, 1) > 0) {
    ::close(fd);
    throw InputError("--graph " + path + ": the file reports size 0 but has content (a /proc or /sys file?); copy it to a regular file first");
  }
  return fd;
}

// RAII file descriptor for pread.
class InputFile {
 public:
  explicit InputFile(const std::string& path) : path_(path), fd_(open_regular_file(path)) {
    struct stat st {};
    if (::fstat(fd_, &st) != 0) {
      ::close(fd_);
      throw FileError(path + ": cannot read: " + std::strerror(errno));
    }
    size_ = st.st_size;
  }
  ~InputFile() { ::close(fd_); }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  std::int64_t size() const { return size_; }
  // Reads [begin, end) (clipped to the file).
  std::string read(std::int64_t begin, std::int64_t end) const {
    end = std::min(end, size_);
    std::string out(static_cast<size_t>(std::max<std::int64_t>(0, end - begin)), '\0');
    std::int64_t done = 0;
    while (done < static_cast<std::int64_t>(out.size())) {
      const ssize_t n = ::pread(fd_, out.data() + done, out.size() - static_cast<size_t>(done), begin + done);
      if (n < 0) throw FileError(path_ + ": read failed: " + std::strerror(errno));
      if (n == 0) break;
      done += n;
    }
    out.resize(static_cast<size_t>(done));
    return out;
  }
  // Position just past the first '\n' at or after `pos` (file size if none).
  std::int64_t after_newline(std::int64_t pos) const {
    constexpr std::int64_t kBlock = 1 << 16;
    for (std::int64_t at = pos; at < size_; at += kBlock) {
      const std::string block = read(at, at + kBlock);
      const auto nl = block.find('\n');
      if (nl != std::string::npos) return at + static_cast<std::int64_t>(nl) + 1;
    }
    return size_;
  }

 private:
  std::string path_;
  int fd_;
  std::int64_t size_ = 0;
};

// A header's entry count that disagrees with the data means a truncated or hand-edited file: refused, naming
// the header line. Checked after parsing, so a malformed line is reported first.
void check_declared_entries(const std::string& path, GraphFormat format, const FileHeader& header,
                            std::int64_t records, std::int64_t arcs_listed) {
  if (header.declared_entries < 0) return;
  const std::string at = path + ":" + std::to_string(header.data_first_line - 1) + ": ";
  const std::string declared = std::to_string(header.declared_entries);
  if (format == GraphFormat::matrix_market && records != header.declared_entries)
    throw InputError(at + "the size line declares " + declared + " entries but " + std::to_string(records) +
                     " entry lines follow (truncated or edited file?)");
  if (format == GraphFormat::dimacs && records != header.declared_entries)
    throw InputError(at + "the problem line declares " + declared + " arcs but " + std::to_string(records) +
                     " arc lines follow (truncated or edited file?)");
  // METIS lists every undirected edge from both ends: 2m neighbour entries.
  if (format == GraphFormat::metis && arcs_listed != 2 * header.declared_entries)
    throw InputError(at + "the header declares " + declared + " edges but the vertex lines list " +
                     std::to_string(arcs_listed) + " neighbours (expected 2 x " + declared +
                     ": every edge from both ends)");
}

// A header may declare any size: a 77-byte file can claim 10^12 nodes. Before anything is allocated for the
// declared nodes, their cost is checked against the memory one rank may use. Loading costs about
// kLoadBytesPerNode per node (ids, row pointers, degrees, partition and relabelling arrays) and
// kLoadBytesPerArc per arc (the parsed arc, its mirror and the CSR entry), spread over the ranks.
constexpr double kLoadBytesPerNode = 64;
constexpr double kLoadBytesPerArc = 48;

void check_declared_size_fits(const Communicator& comm, const std::string& path, const FileHeader& header,
                              std::uint64_t memory_limit_option) {
  if (header.declared_nodes < 0) return;
  const double arcs = 2.0 * static_cast<double>(std::max<std::int64_t>(header.declared_entries, 0));
  const double need = (kLoadBytesPerNode * static_cast<double>(header.declared_nodes) + kLoadBytesPerArc * arcs) /
                      comm.size();
  const std::uint64_t limit = memory_limit_per_rank(comm, memory_limit_option);
  check_memory_fits(comm, need, limit,
                    path + ":" + std::to_string(header.data_first_line - 1) + ": the header declares " +
                        std::to_string(header.declared_nodes) + " nodes; loading them");
}

// GML: the summaries of every chunk give each rank the blocks open at its start; a rank whose chunk opens a
// node or edge block it does not close reads the lines after its chunk until that block closes.
ParsedGml parse_gml_share(const Communicator& comm, const std::string& path, const FileHeader& header,
                          const std::string& chunk, std::int64_t chunk_end, std::int64_t file_size,
                          const ChunkContext& context) {
  const auto p = static_cast<std::size_t>(comm.size());
  // Every rank gets every rank's few integers (the same block to each destination).
  const auto share = [&](const std::vector<std::int64_t>& mine) {
    std::vector<std::int64_t> send;
    for (std::size_t r = 0; r < p; ++r) send.insert(send.end(), mine.begin(), mine.end());
    Counts counts;
    auto all = comm.alltoallv(send, Counts(p, static_cast<std::int64_t>(mine.size())), &counts);
    return std::make_pair(std::move(all), std::move(counts));
  };
  // 1. A key left waiting for its '[' at each chunk's end.
  const GmlTail tail = gml_chunk_tail(chunk);
  std::vector<GmlTail> tails(p);
  {
    const auto [all, counts] = share({tail.has_tokens ? 1 : 0, tail.pending.waiting ? 1 : 0,
                                      static_cast<std::int64_t>(tail.pending.block)});
    for (std::size_t r = 0; r < p; ++r)
      tails[r] = {all[3 * r] == 1, {all[3 * r + 1] == 1, static_cast<GmlBlock>(all[3 * r + 2])}};
  }
  const GmlPending pending = gml_pending_before(tails, comm.rank());
  // 2. The blocks each chunk leaves open or closes.
  GmlSummary summary;
  collective_try(comm, [&] { summary = summarize_gml_chunk(chunk, context, pending); });
  std::vector<std::int64_t> mine{summary.closes, static_cast<std::int64_t>(summary.opens.size())};
  for (GmlBlock b : summary.opens) mine.push_back(static_cast<std::int64_t>(b));
  std::vector<GmlSummary> summaries(p);
  {
    const auto [all, counts] = share(mine);  // summaries differ in length; alltoallv sizes them
    std::size_t k = 0;
    for (std::size_t r = 0; r < p; ++r) {
      summaries[r].closes = all[k];
      const auto n = all[k + 1];
      k += 2;
      for (std::int64_t j = 0; j < n; ++j) summaries[r].opens.push_back(static_cast<GmlBlock>(all[k++]));
    }
  }
  const std::vector<GmlBlock> open = gml_blocks_open_before(summaries, comm.rank());
  // 3. A record this chunk opens and does not close: read on to its ']'.
  std::string extension;
  collective_try(comm, [&] {
    if (!gml_record_open_at_end(open, summary)) return;
    const std::size_t kept = open.size() - std::min<std::size_t>(open.size(), static_cast<std::size_t>(summary.closes));
    const auto depth = static_cast<std::int64_t>(kept + summary.opens.size());
    const GmlPending pending_at_end = tail.has_tokens ? tail.pending : pending;
    InputFile file(path);
    constexpr std::int64_t kBlock = 1 << 16;
    for (std::int64_t at = chunk_end; at < file_size; at += kBlock) {
      extension += file.read(at, at + kBlock);
      const std::int64_t end = gml_record_end(extension, depth, 2, pending_at_end);
      if (end >= 0) {
        extension.resize(static_cast<std::size_t>(end));
        return;
      }
    }
  });
  ParsedGml parsed;
  collective_try(comm, [&] {
    parsed = parse_gml_chunk(header, chunk, extension, open, pending, context, comm.rank() + 1 == comm.size());
  });
  // 4. One graph per file: the top-level 'graph [' lines of every chunk, in file order.
  std::vector<std::int64_t> mine_graphs{static_cast<std::int64_t>(parsed.graph_lines.size()), 0, 0};
  std::copy(parsed.graph_lines.begin(), parsed.graph_lines.end(), mine_graphs.begin() + 1);
  std::vector<std::int64_t> graph_lines;
  {
    const auto [all, counts] = share(mine_graphs);
    for (std::size_t r = 0; r < p; ++r)
      for (std::int64_t j = 0; j < all[3 * r]; ++j) graph_lines.push_back(all[3 * r + 1 + static_cast<std::size_t>(j)]);
  }
  collective_try(comm, [&] { check_one_gml_graph(path, graph_lines); });
  return parsed;
}

// Options that only text formats take, refused for the formats read whole.
void check_whole_file_options(const std::string& path, GraphFormat format, const GraphOptions& options) {
  if (options.weight_column > 0)
    throw InputError("graph.weight_column " + std::to_string(options.weight_column) + " applies only to edge lists; " + path +
                     " is read as " + format_name(format));
  if (options.ids == IdMode::string)
    throw InputError("graph.ids string applies only to edge lists; " + path + " is read as " + format_name(format));
}

// Runs fn; an InputError it throws gets the --format hint appended (and stays collective if it was).
template <class F>
auto with_hint(const std::string& hint, F&& fn) {
  try {
    return fn();
  } catch (const InputError& e) {
    if (hint.empty()) throw;
    throw InputError(e.what() + hint, e.collective(), e.kind());
  }
}

}  // namespace

std::string read_line_aligned_share(const std::string& path, std::int64_t data_offset, std::int64_t file_size, int rank,
                                    int ranks) {
  InputFile file(path);
  const std::int64_t span = file_size - data_offset;
  const std::int64_t b = data_offset + span * rank / ranks;
  const std::int64_t e = data_offset + span * (rank + 1) / ranks;
  const std::int64_t start = (b == data_offset) ? b : file.after_newline(b - 1);
  const std::int64_t end = (e == file_size) ? e : file.after_newline(e - 1);
  if (start >= end) return {};
  return file.read(start, end);
}

ArcInput read_arcs(const Communicator& comm, const GraphOptions& options) {
  if (is_generated_graph(options.graph)) return generate_arcs(comm, options.graph);
  Timer timer;
  const std::string& path = options.graph;
  GraphFormat format{};
  FileHeader header;
  std::string reason;
  std::int64_t file_size = 0;
  std::string hint;  // with --format: what the file looks like instead, appended to its errors
  // Rank 0 reads the head, picks the format and parses the header; every rank agrees on success or failure.
  collective_try(comm, [&] {
    if (path.empty()) throw InputError("--graph: no graph given (a file, grid:RxC or random:N:MEAN_DEGREE[:SEED])");
    if (!comm.is_root()) return;
    InputFile file(path);
    file_size = file.size();
    const std::string head = file.read(0, kFormatHeadBytes);
    if (options.format == "auto") {
      const FormatChoice choice = detect_format(path, head);
      format = choice.format;
      reason = choice.reason;
    } else {
      format = parse_format_name(options.format);
      reason = "--format";
      hint = format_hint(path, head, format);
    }
    try {
      if (is_whole_file_format(format)) {
        check_whole_file_options(path, format, options);
      } else {
        header = parse_header(format, head, path, options.weight_column, options.ids);
      }
    } catch (const InputError& e) {
      throw InputError(e.what() + hint, e.collective(), e.kind());
    }
  });
  comm.broadcast(format);
  comm.broadcast(hint);
  comm.broadcast(reason);
  if (format == GraphFormat::hdf5) return with_hint(hint, [&] { return detail::read_h5_graph(comm, options, reason); });
  if (is_whole_file_format(format)) return with_hint(hint, [&] { return detail::read_mesh(comm, options, format, reason); });
  comm.broadcast(header);
  comm.broadcast(file_size);
  check_declared_size_fits(comm, path, header, options.memory_limit);
  // Reading and parsing is one step per rank (no loop to report from): large files say when it starts and ends.
  constexpr std::int64_t kSlowFileBytes = std::int64_t{1} << 28;
  const PhaseStep step("loading     reading " + path + ": " + fmt(1e-6 * static_cast<double>(file_size), 0) + " MB as " +
                           format_name(format) + ", " + std::to_string(comm.size()) + " rank(s) in parallel",
                       file_size >= kSlowFileBytes);

  ArcInput input;
  std::string chunk;
  collective_try(comm, [&] { chunk = read_line_aligned_share(path, header.data_offset, file_size, comm.rank(), comm.size()); });
  const std::int64_t lines = count_lines(chunk);
  const std::int64_t records = count_records(format, header, chunk);
  ChunkContext context;
  context.file_name = path;
  context.first_line = header.data_first_line + comm.exscan_sum(lines);
  context.records_before = comm.exscan_sum(records);
  const std::int64_t total_records = comm.sum(records);
  if (format == GraphFormat::obj) header.declared_nodes = total_records;  // OBJ: every 'v' line is a node
  // Without a declared node range the nodes are the ids the file names: self-loops are parsed, and dropped
  // below only after their ids are kept.
  const bool ids_from_arcs = header.declared_nodes < 0;
  context.keep_self_loops = options.keep_self_loops || ids_from_arcs;
  collective_try(comm, [&] {
    if (format == GraphFormat::metis && total_records < header.declared_nodes)
      throw InputError(path + ": the header declares " + std::to_string(header.declared_nodes) + " vertices but only " +
                       std::to_string(total_records) + " vertex lines follow" + hint);
  });

  ParsedChunk parsed;
  if (format == GraphFormat::gml) {
    const std::int64_t chunk_end =
        header.data_offset + comm.exscan_sum(static_cast<std::int64_t>(chunk.size())) + static_cast<std::int64_t>(chunk.size());
    ParsedGml gml = parse_gml_share(comm, path, header, chunk, chunk_end, file_size, context);
    parsed = std::move(gml.chunk);
    input.nodes_listed = true;
    input.listed_node_ids = std::move(gml.node_ids);
    input.listed_node_labels = std::move(gml.labels);
    input.report.gml_directed = comm.max(gml.directed ? 1 : 0) == 1;
  } else {
    collective_try(comm, [&] { with_hint(hint, [&] { parsed = parse_chunk(format, header, chunk, context); }); });
  }
  std::string().swap(chunk);
  const std::int64_t arcs_listed = comm.sum(static_cast<std::int64_t>(parsed.arcs.size()) + parsed.self_loops_dropped);
  collective_try(comm, [&] { check_declared_entries(path, format, header, total_records, arcs_listed); });
  if (ids_from_arcs && !options.keep_self_loops) {
    std::erase_if(parsed.arcs, [&](const Arc& a) {
      if (a.u != a.v) return false;
      input.self_loop_ids.push_back(a.u);
      ++parsed.self_loops_dropped;
      return true;
    });
  }
  input.arcs = std::move(parsed.arcs);
  input.string_ids = header.ids == IdMode::string;
  input.names = std::move(parsed.names);
  input.declared_nodes = header.declared_nodes;
  input.id_base = header.declared_nodes >= 0 ? 1 : 0;

  LoadReport& report = input.report;
  report.source = path + " as " + format_name(format) + " (" + reason + ")";
  report.lines = comm.sum(lines) + header.data_first_line - 1;
  report.self_loops_dropped = comm.sum(parsed.self_loops_dropped);
  report.arcs_read = comm.sum(static_cast<std::int64_t>(input.arcs.size())) + report.self_loops_dropped;
  report.skipped_header_line = header.skipped_header_line;
  report.declared_nodes = header.declared_nodes;
  report.weighted = header.has_weights;
  // GML edges carry a weight only where they say so: weighted when one of them gives a weight other than 1.
  if (format == GraphFormat::gml && report.weighted) {
    const bool any = std::any_of(input.arcs.begin(), input.arcs.end(), [](const Arc& a) { return a.w != 1.0; });
    report.weighted = comm.max(any ? 1 : 0) == 1;
  }
  report.string_ids = input.string_ids;
  report.read_seconds = comm.max(timer.seconds());
  return input;
}

}  // namespace graphrf
