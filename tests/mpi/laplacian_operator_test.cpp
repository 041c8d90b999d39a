// The graph's normalised Laplacian as a distributed operator: equals the dense L = I - W built in the test,
// and random wavelet features on it have the same bits on all ranks as on rank 0 alone.
#include <gtest/gtest.h>

#include <map>

#include "graphrf/core/counter_rng.hpp"
#include "graphrf/graph/laplacian_operator.hpp"
#include "graphrf/spectral/chebyshev.hpp"
#include "graphrf/spectral/random_wavelet_features.hpp"
#include "mpi_test_support.hpp"

using namespace graphrf;
using graphrf::testing::gather_entries;
using graphrf::testing::world;

namespace {
DistributedGraph load_on(const Communicator& comm, const std::string& graph, const std::string& partition) {
  GraphOptions o;
  o.graph = graph;
  o.partition = partition;
  return load_graph(comm, o);
}

// Embedding rows keyed by original id, gathered on every rank of `comm`.
std::map<std::int64_t, std::vector<double>> by_id(const DistributedGraph& g, const Eigen::MatrixXd& local) {
  std::vector<double> send;
  for (std::int64_t i = 0; i < g.n_local(); ++i) {
    send.push_back(double(g.original_id[size_t(i)]));
    for (Eigen::Index c = 0; c < local.cols(); ++c) send.push_back(local(i, c));
  }
  const Communicator& comm = *g.comm;
  Counts counts(size_t(comm.size()), std::int64_t(send.size()));
  std::vector<double> all_send;
  for (int r = 0; r < comm.size(); ++r) all_send.insert(all_send.end(), send.begin(), send.end());
  const auto all = comm.alltoallv(all_send, counts);
  std::map<std::int64_t, std::vector<double>> out;
  const auto width = size_t(local.cols()) + 1;
  for (size_t k = 0; k + width <= all.size(); k += width)
    out[std::int64_t(all[k])] = std::vector<double>(all.begin() + std::ptrdiff_t(k + 1), all.begin() + std::ptrdiff_t(k + width));
  return out;
}
}  // namespace

TEST(LaplacianOperator, EqualsDenseLaplacian) {
  const auto g = load_on(world(), "random:50:5:4", "metis");
  const auto op = normalized_laplacian_operator(g);
  Eigen::MatrixXd x(g.n_local(), 3), y;
  for (std::int64_t i = 0; i < g.n_local(); ++i)
    for (int c = 0; c < 3; ++c) x(i, c) = std::sin(double(g.original_id[size_t(i)] * 3 + c));
  op.apply(x, y);
  // Dense L x from the entries by id (independent of the operator's ghost handling).
  std::map<std::int64_t, std::vector<std::pair<std::int64_t, double>>> rows;
  for (const auto& t : gather_entries(g, true)) rows[t.row].push_back({t.col, t.value});
  for (std::int64_t i = 0; i < g.n_local(); ++i) {
    const auto id = g.original_id[size_t(i)];
    for (int c = 0; c < 3; ++c) {
      double want = std::sin(double(id * 3 + c));
      for (const auto& [j, w] : rows[id]) want -= w * std::sin(double(j * 3 + c));
      EXPECT_NEAR(y(i, c), want, 1e-14);
    }
  }
}

TEST(LaplacianOperator, WaveletEmbeddingHasTheSameBitsOnOneRankAndOnAll) {
  WaveletOptions options;
  options.rank = 6;
  options.oversample = 4;
  options.seed = 5;
  const auto h = [](double l) { return std::exp(-3.0 * l); };
  const auto g = load_on(world(), "grid:7x6", "ptscotch");
  const auto all = by_id(g, random_wavelet_features(normalized_laplacian_operator(g), h, options).embedding_local);
  MPI_Comm solo_comm;
  MPI_Comm_split(MPI_COMM_WORLD, world().rank() == 0 ? 0 : MPI_UNDEFINED, 0, &solo_comm);
  int same = 1;
  if (world().rank() == 0) {
    {
      const Communicator solo(solo_comm);
      const auto g1 = load_on(solo, "grid:7x6", "block");
      same = by_id(g1, random_wavelet_features(normalized_laplacian_operator(g1), h, options).embedding_local) == all;
    }
    MPI_Comm_free(&solo_comm);
  }
  world().broadcast(same);
  EXPECT_EQ(same, 1);
}

TEST(LaplacianOperator, FusedChebyshevStepHasTheSameBitsAsApply) {
  // The fused row-major step and the generic path (op.apply, then the recurrence formula) must agree bit for
  // bit, on every rank count and partition: the filter output and the wavelet embedding.
  const auto g = load_on(world(), "random:300:6:2", "ptscotch");
  const auto fused = normalized_laplacian_operator(g);
  ASSERT_TRUE(bool(fused.fused_step));
  auto generic = fused;
  generic.fused_step = nullptr;
  Eigen::MatrixXd x(g.n_local(), 5);
  for (std::int64_t i = 0; i < g.n_local(); ++i)
    for (int c = 0; c < 5; ++c) x(i, c) = std::cos(double(g.original_id[size_t(i)] * 5 + c));
  const auto c1 = chebyshev_coefficients([](double t) { return std::exp(-2.0 * t); }, 25, 2.0);
  const auto c2 = jackson_chebyshev_coefficients(0.0, 0.3, 40, 2.0);
  const auto a = chebyshev_filter(fused, 2.0, {c1, c2}, x), b = chebyshev_filter(generic, 2.0, {c1, c2}, x);
  EXPECT_EQ(a[0], b[0]);
  EXPECT_EQ(a[1], b[1]);
  WaveletOptions options;
  options.rank = 8;
  options.seed = 3;
  const auto h = [](double l) { return std::exp(-3.0 * l); };
  EXPECT_EQ(random_wavelet_features(fused, h, options).embedding_local,
            random_wavelet_features(generic, h, options).embedding_local);
}
