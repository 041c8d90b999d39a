// `graphrf bench-attention`: GRF-masked vs unmasked linear attention on generated graphs of growing N
// (time per node shows the O(N) scaling), and against the dense O(N^2) masked computation while N is small
// enough for an N x N mask.
#include <Eigen/Sparse>
#include <sstream>

#include "graphrf/attention/attention_pipeline.hpp"
#include "graphrf/attention/attention_reference.hpp"
#include "graphrf/cli/commands.hpp"
#include "graphrf/grf/dense_gather.hpp"
#include "graphrf/core/timer.hpp"

namespace graphrf {

namespace {

struct BenchAttentionOptions {
  std::string sizes, walkers_list, partition;
  double p_halt = 0.5;
  int dim = 8;
  std::int64_t dense_max = 16384;
  std::uint64_t seed = 1;
  int host_size = 0;
};

void declare_bench_attention_options(po::options_description& desc, BenchAttentionOptions& o) {
  desc.add_options()
      ("sizes", po::value(&o.sizes)->default_value("10000,100000,1000000"), "node counts N (square grids)")
      ("walkers-list", po::value(&o.walkers_list)->default_value("4,16"), "walkers per node")
      ("p-halt", double_value(&o.p_halt, 0.5), "halting probability")
      ("dim", po::value(&o.dim)->default_value(8), "d = m (relu features) and d_v")
      ("dense-max", po::value(&o.dense_max)->default_value(16384), "largest N for the dense masked computation")
      ("partition", po::value(&o.partition)->default_value("metis"), "partitioner")
      ("host-size", po::value(&o.host_size)->default_value(0), "ranks per host (as for every command; 1: all crossings by message)")
      ("seed", po::value(&o.seed)->default_value(1), "seed");
}

int run_bench_attention(const CommandContext& ctx, BenchAttentionOptions& options) {
  const Communicator& comm = ctx.comm;
  std::vector<std::int64_t> sizes, walker_counts;
  collective_try(comm, [&] {
    for (const auto& s : split_list(options.sizes, ',')) sizes.push_back(std::stoll(s));
    walker_counts = walkers_list_from(options.walkers_list);
    if (options.host_size < 0) throw InputError("--host-size: must be 0 (each machine) or a number of ranks >= 1");
  });
  const int dim = options.dim;
  const Log& log = ctx.log;
  for (const auto n_target : sizes) {
    const auto side = static_cast<std::int64_t>(std::llround(std::sqrt(static_cast<double>(n_target))));
    GraphOptions o;
    o.graph = "grid:" + std::to_string(side) + "x" + std::to_string(side);
    o.partition = options.partition;
    o.host_size = options.host_size;
    const DistributedGraph g = load_graph(comm, o);
    const QkvRows qkv = synthetic_qkv(g, 1, dim, dim, options.seed);
    for (const auto n : walker_counts) {
      AttentionConfig config;
      config.walk.walkers = n;
      config.walk.p_halt = options.p_halt;
      config.walk.seed = options.seed;
      config.features.kind = FeatureKind::relu;
      Timer timer;
      const auto heads = run_attention(g, qkv, config, log);
      const double total = comm.max(timer.seconds());
      const HeadResult& r = heads[0];
      const double walk = r.grf.walks[0].walk_seconds, assemble = r.grf.assemble_seconds;
      const double masked = r.stats.key_seconds + r.stats.query_seconds;
      const double linear = r.linear_stats.key_seconds + r.linear_stats.query_seconds;
      std::ostringstream line;
      line << "bench=attention graph=" << o.graph << " partition=" << o.partition << " dim=" << dim << " nodes=" << g.n_global() << " ranks=" << comm.size() << " walkers=" << n
           << " nnz_per_row=" << fmt(static_cast<double>(comm.sum(static_cast<std::int64_t>(r.grf.phi[0].col.size()))) /
                                      static_cast<double>(g.n_global()), 2)
           << " walk_seconds=" << fmt(walk, 4) << " assemble_seconds=" << fmt(assemble, 4)
           << " masked_attention_seconds=" << fmt(masked, 4) << " unmasked_linear_seconds=" << fmt(linear, 5)
           << " masked_over_unmasked=" << fmt(masked / std::max(linear, 1e-9), 1)
           << " grf_total_seconds=" << fmt(total, 4)
           << " microseconds_per_node=" << fmt(1e6 * total / static_cast<double>(g.n_global()), 3);
      // The dense O(N^2) masked computation with the same mask G G^T, on rank 0.
      if (g.n_global() <= options.dense_max) {
        // G gathered as triplets on rank 0; the mask G G^T is formed sparsely, then used densely.
        const SparseRows& shifted = r.grf.phi[0];
        std::vector<Eigen::Triplet<double>> local;
        for (std::int64_t i = 0; i < shifted.n_local(); ++i)
          for (auto k = shifted.indptr[static_cast<size_t>(i)]; k < shifted.indptr[static_cast<size_t>(i) + 1]; ++k)
            local.emplace_back(static_cast<int>(g.first() + i), static_cast<int>(shifted.col[static_cast<size_t>(k)]),
                               shifted.value[static_cast<size_t>(k)]);
        Counts to_root(static_cast<size_t>(comm.size()), 0);
        to_root[0] = static_cast<std::int64_t>(local.size());
        const auto triplets = comm.alltoallv(local, to_root);
        double dense_seconds = 0;
        const Eigen::MatrixXd pq = gather_dense_block(comm, r.phi_q, g.n_global());
        const Eigen::MatrixXd pk = gather_dense_block(comm, r.phi_k, g.n_global());
        const Eigen::MatrixXd v = gather_dense_block(comm, qkv.v[0], g.n_global());
        if (comm.is_root()) {
          Timer dense_timer;
          Eigen::SparseMatrix<double, Eigen::RowMajor> gs(g.n_global(), g.n_global());
          gs.setFromTriplets(triplets.begin(), triplets.end());
          const Eigen::SparseMatrix<double, Eigen::RowMajor> product = gs * Eigen::SparseMatrix<double, Eigen::RowMajor>(gs.transpose());
          const Eigen::MatrixXd mask = Eigen::MatrixXd(product);
          const Eigen::MatrixXd out = masked_linear_attention(pq, pk, v, mask);
          dense_seconds = dense_timer.seconds() + 0 * out(0, 0);
        }
        comm.broadcast(dense_seconds);
        line << " dense_masked_seconds=" << fmt(dense_seconds, 3) << " dense_over_grf=" << fmt(dense_seconds / total, 1);
      }
      log.result(line.str());
    }
  }
  return 0;
}

}  // namespace

Command bench_attention_command() {
  return make_command<BenchAttentionOptions>("bench-attention",
                                             "benchmark: GRF-masked vs unmasked and dense masked attention across N",
                                             declare_bench_attention_options, run_bench_attention);
}

}  // namespace graphrf
