// Pooled query/key moments over ranks and the whitening matrix Lambda^-1/2 for DARKFormer features.
// See whitening.hpp.
#include "graphrf/attention/whitening.hpp"

#include <Eigen/Eigenvalues>

#include <climits>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "graphrf/attention/feature_map.hpp"
#include "graphrf/core/error.hpp"
#include "graphrf/core/option_error.hpp"

namespace graphrf {
namespace {

constexpr int kOrderedSumTag = 7302;

// Elementwise sum of equal-length vectors over ranks in a fixed order: at step k = 1, 2, 4, ..., rank r
// with r % 2k == 0 adds the partial sum of rank r + k (if it exists) to its own; rank 0's total is then
// broadcast. Deterministic for a fixed rank count and identical on every rank, unlike MPI_Allreduce,
// whose algorithm (and so summation order) the MPI library may choose.
std::vector<double> ordered_sum(const Communicator& comm, std::vector<double> values) {
  if (values.size() > static_cast<std::size_t>(INT_MAX)) throw std::invalid_argument("ordered_sum: vector too long");
  const int n = static_cast<int>(values.size());
  const int rank = comm.rank();
  std::vector<double> incoming(values.size());
  for (int step = 1; step < comm.size(); step *= 2) {
    if (rank % (2 * step) == 0) {
      const int from = rank + step;
      if (from < comm.size()) {
        check_mpi(MPI_Recv(incoming.data(), n, MPI_DOUBLE, from, kOrderedSumTag, comm.get(), MPI_STATUS_IGNORE),
                  "MPI_Recv");
        for (int i = 0; i < n; ++i) values[static_cast<std::size_t>(i)] += incoming[static_cast<std::size_t>(i)];
      }
    } else if (rank % (2 * step) == step) {
      check_mpi(MPI_Send(values.data(), n, MPI_DOUBLE, rank - step, kOrderedSumTag, comm.get()), "MPI_Send");
      count_sent_bytes(static_cast<std::int64_t>(n) * static_cast<std::int64_t>(sizeof(double)));
      break;  // this rank's partial sum is now part of another's
    }
  }
  comm.broadcast(values, 0);
  return values;
}

void check_rows(const Eigen::MatrixXd& x, int d, const char* what) {
  if (x.rows() > 0 && x.cols() != d)
    throw std::invalid_argument(std::string("pooled_moments: ") + what + " have " + std::to_string(x.cols()) +
                                " columns, expected d = " + std::to_string(d));
}

}  // namespace

PooledMoments pooled_moments(const Communicator& comm, const Eigen::MatrixXd& queries, const Eigen::MatrixXd& keys,
                             int d, double scale) {
  if (d < 1) throw std::invalid_argument("pooled_moments: d must be >= 1");
  if (!(scale > 0) || !std::isfinite(scale)) throw std::invalid_argument("pooled_moments: scale must be finite and > 0");
  check_rows(queries, d, "queries");
  check_rows(keys, d, "keys");
  PooledMoments out;
  out.count = comm.sum(static_cast<std::int64_t>(queries.rows() + keys.rows()));
  const auto ud = static_cast<std::size_t>(d);

  // Pass 1: the mean.
  std::vector<double> sum(ud, 0.0);
  for (const Eigen::MatrixXd* x : {&queries, &keys})
    for (Eigen::Index i = 0; i < x->rows(); ++i)
      for (int c = 0; c < d; ++c) sum[static_cast<std::size_t>(c)] += scale * (*x)(i, c);
  sum = ordered_sum(comm, std::move(sum));
  out.mean = Eigen::Map<const Eigen::VectorXd>(sum.data(), d);
  if (out.count > 0) out.mean /= static_cast<double>(out.count);

  // Pass 2: the scatter about the global mean.
  Eigen::MatrixXd scatter = Eigen::MatrixXd::Zero(d, d);
  for (const Eigen::MatrixXd* x : {&queries, &keys}) {
    if (x->rows() == 0) continue;
    Eigen::MatrixXd centered = scale * *x;
    centered.rowwise() -= out.mean.transpose();
    scatter.noalias() += centered.transpose() * centered;
  }
  std::vector<double> flat(scatter.data(), scatter.data() + ud * ud);
  flat = ordered_sum(comm, std::move(flat));
  out.covariance = Eigen::Map<const Eigen::MatrixXd>(flat.data(), d, d);
  if (out.count >= 2)
    out.covariance /= static_cast<double>(out.count - 1);
  else
    out.covariance.setZero();
  // Exactly symmetric (the two triangles of a product can differ in the last bit).
  out.covariance = (0.5 * (out.covariance + out.covariance.transpose())).eval();
  return out;
}

Eigen::MatrixXd inverse_sqrt(const Eigen::MatrixXd& lambda, double ridge) {
  if (lambda.rows() != lambda.cols() || lambda.rows() < 1)
    throw std::invalid_argument("inverse_sqrt: needs a nonempty square matrix");
  if (!(ridge >= 0) || !std::isfinite(ridge))
    throw InputError(std::string(kDarkRidgeOption) + ": must be finite and >= 0 (got " + format_number(ridge, 6) + ")");
  if (!lambda.allFinite())
    throw InputError(std::string(kFeatureOption) + " dark: the pooled query/key covariance is not finite (infinite or NaN queries or keys)");
  const Eigen::Index d = lambda.rows();
  Eigen::MatrixXd a = lambda;
  a.diagonal().array() += ridge;
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(a);
  if (eig.info() != Eigen::Success)
    throw InputError(std::string(kFeatureOption) + " dark: the eigendecomposition of the pooled query/key covariance failed");
  const Eigen::VectorXd& e = eig.eigenvalues();  // ascending
  const double smallest = e(0), largest = e(d - 1);
  if (!(largest > 0) || smallest <= kSingularRelativeEigenvalue * largest)
    throw InputError(std::string(kFeatureOption) + " dark: the pooled query/key covariance is singular (smallest eigenvalue " + format_number(smallest, 6) +
                     ", largest " + format_number(largest, 6) + "); add " + std::string(kDarkRidgeOption) + " EPS to regularise");
  const Eigen::MatrixXd& v = eig.eigenvectors();
  Eigen::MatrixXd m = v * e.array().rsqrt().matrix().asDiagonal() * v.transpose();
  return (0.5 * (m + m.transpose())).eval();
}

Eigen::MatrixXd whitening_matrix(const Communicator& comm, const Eigen::MatrixXd& queries, const Eigen::MatrixXd& keys,
                                 int d, double scale, double ridge) {
  const PooledMoments moments = pooled_moments(comm, queries, keys, d, scale);
  Eigen::MatrixXd m;
  collective_try(comm, [&] {
    if (moments.count < 2)
      throw InputError(std::string(kFeatureOption) + " dark: whitening needs at least 2 pooled query/key rows (got " +
                       std::to_string(moments.count) + ")");
    m = inverse_sqrt(moments.covariance, ridge);
  });
  // Every rank computed m from the same bits; broadcasting rank 0's copy makes identity a guarantee.
  std::vector<double> flat(m.data(), m.data() + m.size());
  comm.broadcast(flat, 0);
  return Eigen::Map<const Eigen::MatrixXd>(flat.data(), d, d);
}

}  // namespace graphrf
