// Importance-sampled positive random features: Lambda, Sigma* and the importance weights. See
// importance_sampling.hpp.
#include "graphrf/attention/importance_sampling.hpp"

#include <Eigen/Eigenvalues>

#include <cmath>
#include <stdexcept>
#include <string>

#include "graphrf/attention/feature_map.hpp"
#include "graphrf/attention/random_projection.hpp"
#include "graphrf/core/error.hpp"
#include "graphrf/core/option_error.hpp"
#include "graphrf/mpi/reproducible_sum.hpp"

namespace graphrf {

Eigen::MatrixXd reproducible_pooled_covariance(const Communicator& comm, std::int64_t n_global,
                                               std::span<const std::int64_t> row_keys, const Eigen::MatrixXd& queries,
                                               const Eigen::MatrixXd& keys, int d, double scale) {
  const Eigen::Index n = queries.rows();
  if (d < 1 || n_global < 1) throw std::invalid_argument("reproducible_pooled_covariance: needs d >= 1 and rows");
  if (keys.rows() != n || static_cast<Eigen::Index>(row_keys.size()) != n || (n > 0 && (queries.cols() != d || keys.cols() != d)))
    throw std::invalid_argument("reproducible_pooled_covariance: queries, keys and row keys must have one row per node");
  const RowBlockReducer reducer(comm, n_global, row_keys);
  // Queries and keys side by side, so that one reduction of 2d columns gives both sums.
  Eigen::MatrixXd both(n, 2 * d);
  if (n > 0) {
    both.leftCols(d) = scale * queries;
    both.rightCols(d) = scale * keys;
  }
  const std::vector<double> sums = reducer.column_sums(both);
  Eigen::VectorXd mean(d);
  for (int c = 0; c < d; ++c)
    mean(c) = (sums[static_cast<std::size_t>(c)] + sums[static_cast<std::size_t>(d + c)]) / (2.0 * static_cast<double>(n_global));
  both.leftCols(d).rowwise() -= mean.transpose();
  both.rightCols(d).rowwise() -= mean.transpose();
  const Eigen::MatrixXd gram = reducer.gram(both);
  const Eigen::MatrixXd lambda = (gram.topLeftCorner(d, d) + gram.bottomRightCorner(d, d)) /
                                 (2.0 * static_cast<double>(n_global) - 1.0);
  return (0.5 * (lambda + lambda.transpose())).eval();
}

ImportanceProposal importance_proposal(const Eigen::MatrixXd& lambda) {
  if (lambda.rows() != lambda.cols() || lambda.rows() < 1)
    throw std::invalid_argument("importance_proposal: needs a nonempty square matrix");
  const std::string option = std::string(kDrawOption) + " importance";
  if (!lambda.allFinite())
    throw InputError(option + ": the covariance of the scaled queries and keys is not finite (infinite or NaN queries or keys)");
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(lambda);
  if (eig.info() != Eigen::Success) throw InputError(option + ": the eigendecomposition of the query/key covariance failed");
  const Eigen::VectorXd& l = eig.eigenvalues();  // ascending
  const double largest = l(l.size() - 1);
  if (!(2.0 * largest < 1.0))
    throw InputError(option + ": the covariance Lambda of the scaled queries and keys (d^-1/4 q, d^-1/4 k) has an eigenvalue " +
                     format_number(largest, 6) + " >= 1/2, so Sigma* = (I + 2 Lambda)(I - 2 Lambda)^-1 is not a covariance; use " +
                     std::string(kDrawOption) + " orthogonal, orthogonal+pnc or iid, or " + std::string(kFeatureOption) +
                     " dark (which whitens), or scale Q and K down");
  const Eigen::MatrixXd& v = eig.eigenvectors();
  const Eigen::ArrayXd s = (1.0 + 2.0 * l.array()) / (1.0 - 2.0 * l.array());  // eigenvalues of Sigma*
  auto symmetric = [&](const Eigen::ArrayXd& e) {
    const Eigen::MatrixXd m = v * e.matrix().asDiagonal() * v.transpose();
    return (0.5 * (m + m.transpose())).eval();
  };
  ImportanceProposal p;
  p.sigma = symmetric(s);
  p.sqrt_sigma = symmetric(s.sqrt());
  p.inverse = symmetric(s.inverse());
  p.log_det = s.log().sum();
  return p;
}

Eigen::VectorXd importance_log_weights(const ImportanceProposal& proposal, const Eigen::MatrixXd& omega) {
  const Eigen::Index d = proposal.sigma.rows();
  if (omega.cols() != d) throw std::invalid_argument("importance_log_weights: omega must have d columns");
  const Eigen::MatrixXd i_minus_inverse = Eigen::MatrixXd::Identity(d, d) - proposal.inverse;
  const Eigen::VectorXd quadratic = (omega * i_minus_inverse).cwiseProduct(omega).rowwise().sum();
  return (0.5 * proposal.log_det - 0.5 * quadratic.array()).matrix();
}

}  // namespace graphrf
