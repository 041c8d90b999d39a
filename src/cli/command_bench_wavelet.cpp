// `graphrf bench-wavelet`: random wavelet features on generated grids of growing N at fixed K: time per
// filter application (one Chebyshev step, a sparse product with an N x (K+r) block) and per embedding, and a
// dense eigendecomposition at the sizes where that is still feasible.
#include <sstream>

#include "graphrf/cli/cli.hpp"
#include "graphrf/spectral/chebyshev.hpp"
#include "graphrf/grf/dense_gather.hpp"
#include "graphrf/graph/laplacian_operator.hpp"
#include "graphrf/spectral/random_wavelet_features.hpp"
#include "graphrf/core/timer.hpp"

namespace graphrf {

void add_bench_wavelet_options(po::options_description& desc) {
  desc.add_options()
      ("sizes", po::value<std::string>()->default_value("10000,100000,1000000"), "node counts N (square grids)")
      ("rank,K", po::value<std::int64_t>()->default_value(32), "embedding rank K")
      ("dense-sizes", po::value<std::string>()->default_value("2000,4000"), "N for the dense eigendecomposition")
      ("partition", po::value<std::string>()->default_value("metis"), "partitioner")
      ("seed", po::value<std::uint64_t>()->default_value(1), "seed");
}

int run_bench_wavelet(const CommandContext& ctx) {
  const Communicator& comm = ctx.comm;
  const auto& vm = ctx.vm;
  const Log& log = ctx.log;
  auto sizes_of = [](const std::string& text) {
    std::vector<std::int64_t> out;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ','))
      if (!item.empty()) out.push_back(std::stoll(item));
    return out;
  };
  KernelSpec kernel;
  kernel.beta = 5.0;
  const auto h = [&](double l) { return kernel_of_laplacian_eigenvalue(kernel, l); };
  for (const auto n_target : sizes_of(vm["sizes"].as<std::string>())) {
    const auto side = static_cast<std::int64_t>(std::llround(std::sqrt(static_cast<double>(n_target))));
    GraphOptions o;
    o.graph = "grid:" + std::to_string(side) + "x" + std::to_string(side);
    o.partition = vm["partition"].as<std::string>();
    const DistributedGraph g = load_graph(comm, o);
    const DistributedOperator op = normalized_laplacian_operator(g);
    WaveletOptions options;
    options.rank = vm["rank"].as<std::int64_t>();
    options.seed = vm["seed"].as<std::uint64_t>();
    const auto resolved = resolve_wavelet_options(g.n_global(), options);
    // One filter application: a degree-30 Chebyshev filter on an N x (K+r) block, per step.
    const Eigen::MatrixXd x = Eigen::MatrixXd::Ones(g.n_local(), resolved.rank + resolved.oversample);
    const std::vector<std::vector<double>> coeffs = {chebyshev_coefficients(h, 30, 2.0)};
    Timer timer;
    chebyshev_filter(op, 2.0, coeffs, x);
    const double filter_step = comm.max(timer.seconds()) / 30.0;
    timer.reset();
    const WaveletResult result = random_wavelet_features(op, h, options);
    const double embed = comm.max(timer.seconds());
    std::ostringstream line;
    line << "bench=wavelet graph=" << o.graph << " nodes=" << g.n_global() << " edges=" << g.n_edges_global
         << " ranks=" << comm.size() << " K=" << result.rank << " r=" << result.oversample
         << " filter_step_seconds=" << fmt(filter_step, 5)
         << " nanoseconds_per_edge_column=" << fmt(1e9 * filter_step / (static_cast<double>(2 * g.n_edges_global + g.n_global()) * static_cast<double>(result.rank + result.oversample)), 3)
         << " embedding_seconds=" << fmt(embed, 3);
    log.result(line.str());
  }
  for (const auto n_target : sizes_of(vm["dense-sizes"].as<std::string>())) {
    const auto side = static_cast<std::int64_t>(std::llround(std::sqrt(static_cast<double>(n_target))));
    GraphOptions o;
    o.graph = "grid:" + std::to_string(side) + "x" + std::to_string(side);
    const DistributedGraph g = load_graph(comm, o);
    const Eigen::MatrixXd w = gather_dense_w(g, WalkOptions{});
    double dense = 0;
    if (comm.is_root()) {
      Timer timer;
      const Eigen::MatrixXd lap = Eigen::MatrixXd::Identity(w.rows(), w.cols()) - w;
      Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(lap);
      dense = timer.seconds() + 0 * eig.eigenvalues()(0);
    }
    comm.broadcast(dense);
    WaveletOptions options;
    options.rank = vm["rank"].as<std::int64_t>();
    options.seed = vm["seed"].as<std::uint64_t>();
    Timer timer;
    random_wavelet_features(normalized_laplacian_operator(g), h, options);
    const double embed = comm.max(timer.seconds());
    log.result("bench=wavelet_vs_dense graph=" + o.graph + " nodes=" + std::to_string(g.n_global()) + " ranks=" +
               std::to_string(comm.size()) + " dense_eigendecomposition_seconds=" + fmt(dense, 3) +
               " embedding_seconds=" + fmt(embed, 3) + " dense_over_embedding=" + fmt(dense / embed, 1));
  }
  return 0;
}

}  // namespace graphrf
