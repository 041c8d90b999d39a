#pragma once
// Small graphs with known spectra for the random wavelet feature tests, their dense normalised Laplacians,
// and a DistributedOperator over a dense matrix: every rank holds the whole matrix, X is assembled by an
// allreduce of zero-padded rows (exact: each entry has one nonzero contribution), and each owned row is
// computed as sum_j L(key, j) X(j, :) over the row's nonzeros in ascending j: a fixed order of operations
// per row, as distributed_operator.hpp asks of real operators.
#include <Eigen/Dense>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <numeric>
#include <random>
#include <utility>
#include <vector>

#include "graphrf/mpi/communicator.hpp"
#include "graphrf/core/counter_rng.hpp"
#include "graphrf/mpi/distributed_operator.hpp"

namespace graphrf::testing {

// Row keys 0 .. n-1.
inline std::vector<std::int64_t> iota_keys(std::int64_t n) {
  std::vector<std::int64_t> k(static_cast<size_t>(n));
  std::iota(k.begin(), k.end(), 0);
  return k;
}

// c cliques of s nodes; clique t's last node is joined to clique t+1's first (a ring). The normalised
// Laplacian has c eigenvalues below ~2/s^2 and the rest near s/(s-1): a wide gap after lambda_c.
inline Eigen::MatrixXd ring_of_cliques(int cliques, int size) {
  const int n = cliques * size;
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(n, n);
  for (int t = 0; t < cliques; ++t) {
    for (int i = 0; i < size; ++i)
      for (int j = 0; j < size; ++j)
        if (i != j) a(t * size + i, t * size + j) = 1.0;
    const int u = t * size + size - 1, v = ((t + 1) % cliques) * size;
    a(u, v) = a(v, u) = 1.0;
  }
  return a;
}

// nx x ny grid, 4-neighbour.
inline Eigen::MatrixXd grid_2d(int nx, int ny) {
  const int n = nx * ny;
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(n, n);
  for (int x = 0; x < nx; ++x)
    for (int y = 0; y < ny; ++y) {
      const int i = x * ny + y;
      if (x + 1 < nx) a(i, i + ny) = a(i + ny, i) = 1.0;
      if (y + 1 < ny) a(i, i + 1) = a(i + 1, i) = 1.0;
    }
  return a;
}

// A ring of n nodes plus random chords up to mean degree about `mean_degree` (a small-world graph): an expander
// whose normalised Laplacian has no gap after its first eigenvalue, lambda_2 ~ 1 - 2 sqrt(d - 1) / d sitting at
// the edge of a bulk of eigenvalues, like the random graphs of the benchmarks.
inline Eigen::MatrixXd ring_with_chords(int n, double mean_degree, std::uint64_t seed) {
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(n, n);
  for (int i = 0; i < n; ++i) a(i, (i + 1) % n) = a((i + 1) % n, i) = 1.0;
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> node(0, n - 1);
  const auto chords = static_cast<long>(n * (mean_degree - 2.0) / 2.0);
  for (long c = 0; c < chords;) {
    const int u = node(rng), v = node(rng);
    if (u == v || a(u, v) != 0.0) continue;
    a(u, v) = a(v, u) = 1.0;
    ++c;
  }
  return a;
}

// I - D^{-1/2} A D^{-1/2} (no isolated nodes in the graphs above).
inline Eigen::MatrixXd normalised_laplacian(const Eigen::MatrixXd& a) {
  const Eigen::VectorXd dinv = a.rowwise().sum().cwiseSqrt().cwiseInverse();
  Eigen::MatrixXd l = -(dinv.asDiagonal() * a * dinv.asDiagonal());
  l.diagonal().array() += 1.0;
  return l;
}

// Exact spectral filter V g(Lambda) V^T.
template <class G>
Eigen::MatrixXd spectral_function(const Eigen::MatrixXd& l, G g) {
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(l);
  const Eigen::VectorXd gv = eig.eigenvalues().unaryExpr([&](double x) { return g(x); });
  return eig.eigenvectors() * gv.asDiagonal() * eig.eigenvectors().transpose();
}

// Test data: entry (key, c) uniform in [-1, 1), a function of (seed, key, c) only.
inline Eigen::MatrixXd keyed_test_block(const std::vector<std::int64_t>& keys, Eigen::Index cols, std::uint64_t seed) {
  Eigen::MatrixXd x(static_cast<Eigen::Index>(keys.size()), cols);
  for (Eigen::Index i = 0; i < x.rows(); ++i)
    for (Eigen::Index c = 0; c < cols; ++c)
      x(i, c) = 2.0 * unit_uniform(philox_block(seed, RngDomain::synthetic_data, static_cast<std::uint64_t>(keys[i]),
                                                static_cast<std::uint64_t>(c))[0]) - 1.0;
  return x;
}

// The keys each rank holds under a few layouts of n rows over p ranks.
enum class Layout { even, uneven, empty_rank, permuted };

inline std::vector<std::vector<std::int64_t>> layout_keys(Layout kind, int p, std::int64_t n) {
  std::vector<std::int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  if (kind == Layout::permuted) {
    std::mt19937_64 rng(12345);
    for (std::int64_t i = n - 1; i > 0; --i)  // Fisher-Yates with a portable index draw
      std::swap(order[i], order[static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(i + 1))]);
  }
  std::vector<double> weight(static_cast<size_t>(p), 1.0);
  if (kind == Layout::uneven || kind == Layout::permuted)
    for (int r = 0; r < p; ++r) weight[r] = 1.0 + 2.0 * r;  // rank r gets (2r + 1) shares
  if (kind == Layout::empty_rank && p > 1) weight[1] = 0.0;
  const double total = std::accumulate(weight.begin(), weight.end(), 0.0);
  std::vector<std::vector<std::int64_t>> keys(static_cast<size_t>(p));
  double acc = 0;
  std::int64_t begin = 0;
  for (int r = 0; r < p; ++r) {
    acc += weight[r];
    const std::int64_t end = r + 1 == p ? n : static_cast<std::int64_t>(n * acc / total);
    keys[r].assign(order.begin() + begin, order.begin() + end);
    begin = end;
  }
  return keys;
}

// A DistributedOperator applying the dense symmetric matrix m to the rows with the given keys. The returned
// object keeps the matrix alive through the apply closure.
inline DistributedOperator dense_operator(const Communicator& comm, const Eigen::MatrixXd& m,
                                          std::vector<std::int64_t> keys, std::int64_t first_row) {
  struct Rows {
    std::vector<std::vector<std::pair<std::int64_t, double>>> nz;  // per node: (column, value), ascending column
  };
  auto rows = std::make_shared<Rows>();
  const auto n = m.rows();
  rows->nz.resize(static_cast<size_t>(n));
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < n; ++j)
      if (m(i, j) != 0.0) rows->nz[i].emplace_back(j, m(i, j));
  DistributedOperator op;
  op.comm = &comm;
  op.n_global = n;
  op.first_row = first_row;
  op.n_local = static_cast<std::int64_t>(keys.size());
  op.row_keys = keys;
  op.apply = [rows, keys, n, comm_ptr = &comm](const Eigen::MatrixXd& x, Eigen::MatrixXd& y) {
    Eigen::MatrixXd full = Eigen::MatrixXd::Zero(n, x.cols());
    for (size_t i = 0; i < keys.size(); ++i) full.row(keys[i]) = x.row(static_cast<Eigen::Index>(i));
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, full.data(), static_cast<int>(full.size()), MPI_DOUBLE, MPI_SUM, comm_ptr->get()),
              "MPI_Allreduce");
    y.resize(x.rows(), x.cols());
    for (size_t i = 0; i < keys.size(); ++i)
      for (Eigen::Index c = 0; c < x.cols(); ++c) {
        double s = 0.0;
        for (const auto& [j, v] : rows->nz[keys[i]]) s += v * full(j, c);
        y(static_cast<Eigen::Index>(i), c) = s;
      }
  };
  return op;
}

// This rank's share under a layout: keys and first row (the position of its first row in layout order).
inline DistributedOperator layout_operator(const Communicator& comm, const Eigen::MatrixXd& m, Layout kind) {
  const auto all = layout_keys(kind, comm.size(), m.rows());
  std::int64_t first = 0;
  for (int r = 0; r < comm.rank(); ++r) first += static_cast<std::int64_t>(all[r].size());
  return dense_operator(comm, m, all[comm.rank()], first);
}

// The 1-rank operator in natural order.
inline DistributedOperator serial_operator(const Communicator& comm, const Eigen::MatrixXd& m) {
  std::vector<std::int64_t> keys(static_cast<size_t>(m.rows()));
  std::iota(keys.begin(), keys.end(), 0);
  return dense_operator(comm, m, keys, 0);
}

// Runs fn on communicators of 1, 2, ..., P ranks (the first s ranks of MPI_COMM_WORLD), so one launch at P
// ranks compares every smaller rank count too. Ranks outside a sub-communicator skip that round.
inline void for_each_prefix_communicator(const std::function<void(const Communicator&)>& fn) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int s = 1; s <= size; ++s) {
    MPI_Comm sub = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, rank < s ? 0 : MPI_UNDEFINED, rank, &sub);
    if (sub == MPI_COMM_NULL) continue;
    {
      Communicator c(sub);
      fn(c);
    }
    MPI_Comm_free(&sub);
  }
}

// Largest |local(i, :) - reference(key_i, :)| over this rank's rows (reference in natural key order).
inline double max_row_difference(const Eigen::MatrixXd& local, const std::vector<std::int64_t>& keys,
                                 const Eigen::MatrixXd& reference) {
  double d = 0;
  for (size_t i = 0; i < keys.size(); ++i)
    d = std::max(d, (local.row(static_cast<Eigen::Index>(i)) - reference.row(keys[i])).cwiseAbs().maxCoeff());
  return d;
}

}  // namespace graphrf::testing
