// `graphrf bench-wavelet`: random wavelet features on generated grids of growing N at fixed K (and any further
// graphs named by --graphs), next to what a user would otherwise run for K eigenpairs of the normalised
// Laplacian: a dense eigendecomposition (Eigen, one core, small N) and, when the program is built with SLEPc,
// Krylov-Schur. Per N it prints the filter step
// against a memory-bandwidth bound measured on the spot (STREAM triad), the embedding's time and lambda_K
// share, and the rank-K kernel error of every method; at the end, the N where graphrf becomes faster than each.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <sstream>

#include "graphrf/cli/commands.hpp"
#include "graphrf/cli/eigensolver_anchor.hpp"
#include "graphrf/core/timer.hpp"
#include "graphrf/graph/laplacian_operator.hpp"
#include "graphrf/grf/dense_gather.hpp"
#include "graphrf/spectral/chebyshev.hpp"
#include "graphrf/spectral/chebyshev_recurrence.hpp"
#include "graphrf/spectral/random_wavelet_features.hpp"
#include "graphrf/spectral/spectrum_estimate.hpp"

namespace graphrf {

namespace {
std::optional<EigensolverAnchor>& anchor_slot() {
  static std::optional<EigensolverAnchor> slot;
  return slot;
}
}  // namespace

const EigensolverAnchor* eigensolver_anchor() { return anchor_slot() ? &*anchor_slot() : nullptr; }
void register_eigensolver_anchor(EigensolverAnchor anchor) { anchor_slot() = std::move(anchor); }

namespace {

struct BenchWaveletOptions {
  std::string sizes, graphs, partition;
  std::int64_t rank = 32, oversample = -1, dense_max = 2500, slepc_max = 100000;
  int degree_chi = 60, subspace_iterations = -1, degree_h = 30, error_steps = 20;
  double slepc_tol = 1e-8;
  std::uint64_t seed = 1;
  int host_size = 0;
};

void declare_bench_wavelet_options(po::options_description& desc, BenchWaveletOptions& o) {
  desc.add_options()
      ("sizes", po::value(&o.sizes)->default_value("1024,2025,10000,100000,1000000"), "node counts N (square grids)")
      ("graphs", po::value(&o.graphs)->default_value(""),
       "further graphs after the grids, comma-separated (generators or files, e.g. random:1000000:10)")
      ("rank,K", po::value(&o.rank)->default_value(32), "embedding rank K")
      ("oversample", po::value(&o.oversample)->default_value(-1), "oversampling r (-1: the wavelet default, max(K/10, 15))")
      ("degree-chi", po::value(&o.degree_chi)->default_value(60), "degree M_chi of the low-pass filter")
      ("subspace-iterations", po::value(&o.subspace_iterations)->default_value(-1),
       "passes of the low-pass filter, Q = orth(p_chi(L) Q) (-1: 2 when h varies by more than 10% on [0, lambda_K], else 1)")
      ("degree-h", po::value(&o.degree_h)->default_value(30), "degree M_h of the kernel filter")
      ("dense-max", po::value(&o.dense_max)->default_value(2500), "largest N for the dense eigendecomposition anchor")
      ("slepc-max", po::value(&o.slepc_max)->default_value(100000), "largest N for the SLEPc Krylov-Schur anchor (0: none)")
      ("slepc-tol", double_value(&o.slepc_tol, 1e-8), "SLEPc residual tolerance (relative to ||L||)")
      ("error-steps", po::value(&o.error_steps)->default_value(20), "Lanczos steps for the kernel error estimate (0: skip)")
      ("partition", po::value(&o.partition)->default_value("metis"), "partitioner")
      ("host-size", po::value(&o.host_size)->default_value(0), "ranks per host (as for every command; 1: all crossings by message)")
      ("seed", po::value(&o.seed)->default_value(1), "seed");
}

// The graphs to run, in order: a square grid per size, then the --graphs entries as given.
std::vector<std::string> graphs_of(const BenchWaveletOptions& options) {
  std::vector<std::string> out;
  for (const auto& size : split_list(options.sizes, ',')) {
    std::int64_t n = 0;
    try {
      n = std::stoll(size);
    } catch (const std::exception&) {
      throw Error("bench-wavelet: --sizes entry '" + size + "' is not a node count");
    }
    if (n < 4) throw Error("bench-wavelet: --sizes entry '" + size + "' must be at least 4");
    const auto side = static_cast<std::int64_t>(std::llround(std::sqrt(static_cast<double>(n))));
    out.push_back("grid:" + std::to_string(side) + "x" + std::to_string(side));
  }
  for (const auto& graph : split_list(options.graphs, ',')) out.push_back(graph);
  return out;
}

// Sustained memory bandwidth of this machine's ranks together, in bytes/s: the STREAM triad a = b + s c
// (24 bytes per element, write-allocate not counted, as STREAM reports) on arrays of `elements` doubles per
// rank, all ranks at once, best of 5.
double triad_bandwidth(const Communicator& comm, std::int64_t elements) {
  const auto n = static_cast<size_t>(std::max<std::int64_t>(elements, std::int64_t{1} << 23));
  std::vector<double> a(n, 0.0), b(n, 1.0), c(n, 2.0);
  double best = 1e300;
  for (int rep = 0; rep < 5; ++rep) {
    comm.barrier();
    const Timer t;
    double* __restrict pa = a.data();
    const double* __restrict pb = b.data();
    const double* __restrict pc = c.data();
    for (size_t i = 0; i < n; ++i) pa[i] = pb[i] + 3.0 * pc[i];
    best = std::min(best, comm.max(t.seconds()));
  }
  const double checksum = comm.sum(a[n / 2]);  // keeps the loop from being optimised away
  if (!(checksum > 0)) throw Error("bench-wavelet: STREAM triad produced " + std::to_string(checksum));
  return comm.sum(24.0 * static_cast<double>(n)) / best;
}

// Relative spectral error ||Phi Phi^T - h(L)||_2 / h(0) (h(0) = ||h(L)||_2 for a decreasing h: lambda_1 = 0),
// estimated by Lanczos on E^2 (estimate_lambda_max: top Ritz value plus its residual bound) with h(L) applied
// as a degree-30 Chebyshev interpolant (exp(-5 x) on [0, 2]: truncation below 1e-20).
double kernel_error(const DistributedOperator& lap, const RowBlockReducer& sums, const std::function<double(double)>& h,
                    const Eigen::MatrixXd& phi_local, int steps, std::uint64_t seed) {
  if (steps < 1) return -1.0;
  const auto coeffs = chebyshev_coefficients(h, 30, 2.0);
  auto apply_error = [&](const Eigen::MatrixXd& x, Eigen::MatrixXd& y) {
    y = phi_local * sums.cross(phi_local, x) - chebyshev_filter(lap, 2.0, {coeffs}, x)[0];
  };
  DistributedOperator squared = lap;
  squared.fused_step = nullptr;
  squared.apply = [&](const Eigen::MatrixXd& x, Eigen::MatrixXd& y) {
    Eigen::MatrixXd t;
    apply_error(x, t);
    apply_error(t, y);
  };
  LambdaMaxOptions o;
  o.steps = steps;
  o.margin = 0.0;
  o.seed = seed;
  return std::sqrt(estimate_lambda_max(squared, sums, o)) / h(0.0);
}

// One filter step (the fused Chebyshev step with accumulation, as the embedding runs it) on an N x b block:
// the best of 10 steps, like the triad it is compared with (on a shared machine the best is the least disturbed).
double filter_step_seconds(const Communicator& comm, const DistributedOperator& op, Eigen::Index b, std::uint64_t seed) {
  const Eigen::MatrixXd x = keyed_gaussian_block(op.row_keys, b, seed, RngDomain::wavelet_gaussian);
  RowPanel out = RowPanel::Zero(op.n_local, b);
  ChebyshevRecurrence rec(op, 2.0, x);
  rec.advance(&out, 0.5);  // the first step has no Tb_{k-2} term; time the general ones
  double best = 1e300;
  for (int k = 0; k < 10; ++k) {
    comm.barrier();
    const Timer t;
    rec.advance(&out, 0.1);
    best = std::min(best, comm.max(t.seconds()));
  }
  return best;
}

// Bytes one fused step must move at least: read Tb_{k-1}, read and write Tb_{k-2} (overwritten by Tb_k), read
// and write the output, all n x b; the CSR (weight and neighbour slot per arc, row pointers); ghost rows in.
double filter_step_bytes(const DistributedGraph& g, Eigen::Index b) {
  const double panel = 8.0 * static_cast<double>(g.n_local()) * static_cast<double>(b);
  const double csr = 16.0 * static_cast<double>(g.col.size()) + 8.0 * static_cast<double>(g.n_local() + 1);
  const double ghosts = 8.0 * static_cast<double>(g.ghosts.size()) * static_cast<double>(b);
  return g.comm->sum(5.0 * panel + csr + ghosts);
}

// N where the anchor's time equals graphrf's: log(t_anchor / t_graphrf) is interpolated linearly in log N
// between the two sizes around the sign change, or extrapolated from the two nearest sizes when every size
// is on one side. Returns the text for the RESULT line.
std::string crossover(const std::map<std::int64_t, std::pair<double, double>>& times) {  // N -> (graphrf, anchor)
  if (times.size() < 2) return "crossover_nodes=unknown(need_two_sizes)";
  std::vector<std::pair<double, double>> pts;  // (log N, log ratio)
  for (const auto& [n, t] : times) pts.push_back({std::log(double(n)), std::log(t.second / t.first)});
  size_t i = 0;
  const char* how = "extrapolated";
  for (size_t j = 0; j + 1 < pts.size(); ++j)
    if ((pts[j].second < 0) != (pts[j + 1].second < 0)) {
      i = j;
      how = "interpolated";
      break;
    }
  if (std::string(how) == "extrapolated" && pts.front().second < 0) i = pts.size() - 2;  // anchor faster everywhere
  const auto [x0, y0] = pts[i];
  const auto [x1, y1] = pts[i + 1];
  if (y1 == y0) return "crossover_nodes=unknown(flat)";
  const double x = x0 - y0 * (x1 - x0) / (y1 - y0);
  std::string text = "crossover_nodes=" + fmt(std::exp(x), 0) + " crossover=" + how;
  // An extrapolation far below the sizes measured says little; say plainly where graphrf was measured faster.
  if (std::all_of(pts.begin(), pts.end(), [](const auto& p) { return p.second > 0; }))
    text += " graphrf_faster_at_every_size_from=" + std::to_string(times.begin()->first);
  return text;
}

int run_bench_wavelet(const CommandContext& ctx, BenchWaveletOptions& options) {
  const Communicator& comm = ctx.comm;
  const Log& log = ctx.log;
  KernelSpec kernel;
  kernel.beta = 5.0;
  const auto h = [&](double l) { return kernel_of_laplacian_eigenvalue(kernel, l); };
  const auto k = options.rank;
  const auto seed = options.seed;
  const auto dense_max = options.dense_max;
  const auto slepc_max = options.slepc_max;
  const int error_steps = options.error_steps;
  const EigensolverAnchor* anchor = eigensolver_anchor();
  std::shared_ptr<void> anchor_session;
  collective_try(comm, [&] {
    if (options.host_size < 0) throw InputError("--host-size: must be 0 (each machine) or a number of ranks >= 1");
    if (!anchor && options.slepc_tol != 1e-8)
      throw InputError("--slepc-tol: this build has no SLEPc (CMake found no `pkg-config slepc`), so no Krylov-Schur anchor to tune");
  });
  if (slepc_max > 0 && !anchor)
    log.info("bench-wavelet: no SLEPc in this build (CMake found no `pkg-config slepc`; Debian: apt-get install "
             "libslepc-real-dev, then reconfigure): skipping the Krylov-Schur anchor");
  if (slepc_max > 0 && anchor) anchor_session = anchor->start(comm);
  std::map<std::int64_t, std::pair<double, double>> vs_dense, vs_slepc;

  for (const auto& graph : graphs_of(options)) {
    GraphOptions o;
    o.graph = graph;
    o.partition = options.partition;
    o.host_size = options.host_size;
    const DistributedGraph g = load_graph(comm, o);
    const DistributedOperator op = normalized_laplacian_operator(g);
    const RowBlockReducer sums(op);
    WaveletOptions wavelet;
    wavelet.rank = k;
    wavelet.seed = seed;
    wavelet.oversample = options.oversample;
    wavelet.degree_chi = options.degree_chi;
    wavelet.subspace_iterations = options.subspace_iterations;
    wavelet.degree_h = options.degree_h;
    const auto resolved = resolve_wavelet_options(g.n_global(), wavelet);
    const auto b = static_cast<Eigen::Index>(resolved.rank + resolved.oversample);

    const double step = filter_step_seconds(comm, op, b, seed);
    const double bandwidth = triad_bandwidth(comm, g.n_local() * b);
    const double bound = filter_step_bytes(g, b) / bandwidth;
    const WaveletResult result = random_wavelet_features(op, h, wavelet);
    const double embed = comm.max(result.seconds), lambda_k_time = comm.max(result.lambda_k_seconds);
    const double error = kernel_error(op, sums, h, result.embedding_local, error_steps, seed);
    const double edge_columns = static_cast<double>(2 * g.n_edges_global + g.n_global()) * static_cast<double>(b);
    std::ostringstream line;
    line << "bench=wavelet graph=" << o.graph << " partition=" << o.partition << " nodes=" << g.n_global() << " edges=" << g.n_edges_global
         << " ranks=" << comm.size() << " K=" << result.rank << " r=" << result.oversample
         << " filter_step_seconds=" << fmt(step, 5) << " roofline_step_seconds=" << fmt(bound, 5)
         << " step_over_roofline=" << fmt(step / bound, 2) << " triad_gbytes_per_second=" << fmt(bandwidth / 1e9, 2)
         << " nanoseconds_per_edge_column=" << fmt(1e9 * step / edge_columns, 3) << " embedding_seconds=" << fmt(embed, 3)
         << " lambda_k_seconds=" << fmt(lambda_k_time, 3) << " lambda_k_share=" << fmt(lambda_k_time / embed, 2)
         << " lambda_k=" << sci(result.lambda_k) << " dichotomy_steps=" << result.dichotomy.iterations
         << " subspace_iterations=" << result.subspace_iterations << " kernel_error=" << fmt(error, 6);
    log.result(line.str());

    if (g.n_global() <= dense_max) {
      // Dense anchor: all eigenpairs on rank 0 (one core). Its rank-K truncation is the optimum, whose
      // relative spectral error is exactly h(lambda_{K+1}) / h(0).
      const Eigen::MatrixXd w = gather_dense_w(g, WalkOptions{});
      double dense = 0, best = 0;
      if (comm.is_root()) {
        const Timer timer;
        const Eigen::MatrixXd lap = Eigen::MatrixXd::Identity(w.rows(), w.cols()) - w;
        Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(lap);
        dense = timer.seconds();
        best = h(std::max(0.0, eig.eigenvalues()(k))) / h(0.0);
      }
      comm.broadcast(dense);
      comm.broadcast(best);
      if (graph.starts_with("grid:")) vs_dense[g.n_global()] = {embed, dense};  // crossovers: the grid family
      log.result("bench=wavelet_vs_dense nodes=" + std::to_string(g.n_global()) + " ranks=" + std::to_string(comm.size()) +
                 " dense_seconds=" + fmt(dense, 3) + " dense_kernel_error=" + fmt(best, 6) + " embedding_seconds=" +
                 fmt(embed, 3) + " embedding_kernel_error=" + fmt(error, 6) + " dense_over_embedding=" + fmt(dense / embed, 1));
    }
    if (anchor_session && g.n_global() <= slepc_max) {
      const double tol = options.slepc_tol;
      comm.barrier();
      const Timer timer;
      const PartialEigenpairs pairs = anchor->smallest_eigenpairs(g, k, tol);
      const double solve = comm.max(timer.seconds());
      Eigen::MatrixXd phi = pairs.vectors_local;
      for (Eigen::Index j = 0; j < phi.cols(); ++j) phi.col(j) *= std::sqrt(h(std::max(0.0, pairs.values(j))));
      const double anchor_error = kernel_error(op, sums, h, phi, error_steps, seed);
      if (graph.starts_with("grid:")) vs_slepc[g.n_global()] = {embed, solve};
      log.result("bench=wavelet_vs_" + anchor->name + " nodes=" + std::to_string(g.n_global()) + " ranks=" +
                 std::to_string(comm.size()) + " tol=" + sci(tol) + " " + anchor->name + "_seconds=" + fmt(solve, 3) +
                 " " + anchor->name + "_iterations=" + std::to_string(pairs.iterations) + " " + anchor->name +
                 "_kernel_error=" + fmt(error_steps > 0 ? anchor_error : -1.0, 6) + " lambda_K=" +
                 sci(pairs.values(k - 1)) + " embedding_seconds=" + fmt(embed, 3) + " embedding_kernel_error=" +
                 fmt(error, 6) + " kernel_error_ratio=" + fmt(error / anchor_error, 3) + " " + anchor->name +
                 "_over_embedding=" + fmt(solve / embed, 2));
    }
  }
  if (!vs_dense.empty())
    log.result("bench=wavelet_crossover anchor=dense ranks=" + std::to_string(comm.size()) + " " + crossover(vs_dense));
  if (!vs_slepc.empty())
    log.result("bench=wavelet_crossover anchor=" + anchor->name + " ranks=" + std::to_string(comm.size()) + " " +
               crossover(vs_slepc));
  return 0;
}

}  // namespace

Command bench_wavelet_command() {
  return make_command<BenchWaveletOptions>(
      "bench-wavelet", "benchmark: Chebyshev filtering and wavelet embeddings across N, vs dense eigendecomposition",
      declare_bench_wavelet_options, run_bench_wavelet);
}

}  // namespace graphrf
