// Generated graphs: grid:RxC (4-neighbour grid, like image patches) and random:N:MEAN_DEGREE[:SEED]
// (each node draws about MEAN_DEGREE/2 uniform partners; the union is symmetrised, so the mean degree is
// MEAN_DEGREE up to the rare repeated pair). Each rank generates the arcs of its own block of nodes from
// counter-based draws keyed by node id, so the graph is identical for any rank count.
#include <charconv>
#include <cmath>

#include "graphrf/io/arc_input.hpp"
#include "graphrf/mpi/phase_progress.hpp"
#include "graphrf/mpi/block_distribution.hpp"
#include "graphrf/core/counter_rng.hpp"
#include "graphrf/core/timer.hpp"

namespace graphrf {

namespace {

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == sep) {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  return parts;
}

template <class T>
T parse_number(std::string_view text, const std::string& spec, const char* what) {
  T value{};
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size())
    throw InputError("--graph " + spec + ": " + what + " must be a number (got '" + std::string(text) + "')");
  return value;
}

}  // namespace

bool is_generated_graph(const std::string& spec) { return spec.starts_with("grid:") || spec.starts_with("random:"); }

ArcInput generate_arcs(const Communicator& comm, const std::string& spec) {
  Timer timer;
  ArcInput input;
  input.id_base = 0;
  input.report.source = spec + " (generated)";
  // Every rank parses the same spec: agreeing on its errors prints one line, not one per rank.
  collective_try(comm, [&] {
    if (spec.starts_with("grid:")) {
      const auto dims = split(std::string_view(spec).substr(5), 'x');
      if (dims.size() != 2) throw InputError("--graph " + spec + ": expected grid:ROWSxCOLS, e.g. grid:64x64");
      const auto rows = parse_number<std::int64_t>(dims[0], spec, "ROWS");
      const auto cols = parse_number<std::int64_t>(dims[1], spec, "COLS");
      if (rows < 1 || cols < 1) throw InputError("--graph " + spec + ": ROWS and COLS must be >= 1");
      input.declared_nodes = rows * cols;
      const auto block = BlockDistribution::uniform(input.declared_nodes, comm.size());
      const std::int64_t first = block.first(comm.rank()), last = first + block.count(comm.rank());
      input.arcs.reserve(static_cast<size_t>(2 * (last - first)));
      PhaseProgress progress("generating " + spec, last - first);
      for (std::int64_t u = first; u < last; ++u) {
        progress.update(u - first);
        const std::int64_t r = u / cols, c = u % cols;
        if (c + 1 < cols) input.arcs.push_back({u, u + 1, 1.0});
        if (r + 1 < rows) input.arcs.push_back({u, u + cols, 1.0});
      }
    } else {
      const auto fields = split(std::string_view(spec).substr(7), ':');
      if (fields.size() < 2 || fields.size() > 3)
        throw InputError("--graph " + spec + ": expected random:N:MEAN_DEGREE[:SEED], e.g. random:100000:10");
      const auto n = parse_number<std::int64_t>(fields[0], spec, "N");
      const auto mean_degree = parse_number<double>(fields[1], spec, "MEAN_DEGREE");
      const std::uint64_t seed = fields.size() == 3 ? parse_number<std::uint64_t>(fields[2], spec, "SEED") : 1;
      if (n < 2) throw InputError("--graph " + spec + ": N must be >= 2");
      if (!(mean_degree > 0) || mean_degree > static_cast<double>(n - 1))
        throw InputError("--graph " + spec + ": MEAN_DEGREE must be in (0, N-1]");
      input.declared_nodes = n;
      const auto block = BlockDistribution::uniform(n, comm.size());
      const std::int64_t first = block.first(comm.rank()), last = first + block.count(comm.rank());
      const double half = mean_degree / 2.0;
      const auto whole = static_cast<std::uint64_t>(std::floor(half));
      const double frac = half - static_cast<double>(whole);
      input.arcs.reserve(static_cast<size_t>(static_cast<double>(last - first) * (half + 1)));
      PhaseProgress progress("generating " + spec, last - first);
      for (std::int64_t u = first; u < last; ++u) {
        progress.update(u - first);
        const auto uu = static_cast<std::uint64_t>(u);
        const auto coin = philox_block(seed, RngDomain::graph_generator, uu, ~std::uint64_t{0});
        const std::uint64_t stubs = whole + (unit_uniform(coin[0]) < frac ? 1 : 0);
        for (std::uint64_t k = 0; k < stubs; ++k) {
          const auto draw = philox_block(seed, RngDomain::graph_generator, uu, k);
          auto v = static_cast<std::int64_t>(uniform_below(draw[0], static_cast<std::uint64_t>(n - 1)));
          if (v >= u) ++v;  // uniform over the other n-1 nodes: no self-loops
          input.arcs.push_back({u, v, 1.0});
        }
      }
    }
  });
  input.report.declared_nodes = input.declared_nodes;
  input.report.arcs_read = comm.sum(static_cast<std::int64_t>(input.arcs.size()));
  input.report.read_seconds = comm.max(timer.seconds());
  return input;
}

}  // namespace graphrf
