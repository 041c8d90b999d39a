// A DARKFormer Sigma read from an HDF5 file. See dark_sigma_file.hpp.
#include "graphrf/attention/dark_sigma_file.hpp"

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <vector>

#include "graphrf/core/error.hpp"
#include "graphrf/core/option_error.hpp"
#include "graphrf/io/h5_input.hpp"

namespace graphrf {
namespace {

constexpr double kRelativeTolerance = 1e-12;

std::string shape_text(const std::vector<std::uint64_t>& shape) {
  std::string out;
  for (const auto s : shape) out += (out.empty() ? "" : " x ") + std::to_string(s);
  return out.empty() ? "a scalar" : out;
}

}  // namespace

Eigen::MatrixXd read_dark_sigma_file(const std::string& path, int d) {
  const std::string where = std::string(kDarkSigmaOption) + " " + path + ": ";
  const H5Input in(path);
  const bool has_sigma = in.has("/sigma"), has_m = in.has("/M");
  if (has_sigma == has_m)
    throw InputError(where + (has_sigma ? "has both /sigma and /M; keep one" : "has neither /sigma (d x d) nor /M (r x d)"));
  const std::string name = has_sigma ? "/sigma" : "/M";
  const std::vector<std::uint64_t> shape = in.shape(name);
  const auto ud = static_cast<std::uint64_t>(d);
  const std::string dims = std::to_string(d);
  if (has_sigma && (shape.size() != 2 || shape[0] != ud || shape[1] != ud))
    throw InputError(where + "/sigma is " + shape_text(shape) + ", expected d x d = " + dims + " x " + dims +
                     " (d of the queries and keys)");
  if (has_m && (shape.size() != 2 || shape[0] < 1 || shape[0] > ud || shape[1] != ud))
    throw InputError(where + "/M is " + shape_text(shape) + ", expected r x d with 1 <= r <= d = " + dims +
                     " (d of the queries and keys)");
  const std::vector<double> values = in.read_rows_double(name, 0, shape[0]);
  // Row-major in the file.
  const Eigen::MatrixXd a =
      Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(values.data(), static_cast<Eigen::Index>(shape[0]), d);
  if (!a.allFinite()) throw InputError(where + name + " has NaN or infinite entries");
  if (has_m) return a;

  const double scale = a.cwiseAbs().maxCoeff();
  if ((a - a.transpose()).cwiseAbs().maxCoeff() > kRelativeTolerance * scale)
    throw InputError(where + "/sigma is not symmetric (largest |sigma - sigma^T| " +
                     format_number((a - a.transpose()).cwiseAbs().maxCoeff(), 6) + ")");
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(0.5 * (a + a.transpose()));
  if (eig.info() != Eigen::Success) throw InputError(where + "the eigendecomposition of /sigma failed");
  const Eigen::VectorXd& e = eig.eigenvalues();  // ascending
  if (e(0) < -kRelativeTolerance * std::max(e(d - 1), 0.0) || (e(d - 1) <= 0 && e(0) < 0))
    throw InputError(where + "/sigma is not positive semidefinite (smallest eigenvalue " + format_number(e(0), 6) + ")");
  // M = Sigma^1/2, so that M^T M = Sigma; round-off negatives are zero.
  const Eigen::MatrixXd& v = eig.eigenvectors();
  const Eigen::MatrixXd m = v * e.cwiseMax(0.0).cwiseSqrt().asDiagonal() * v.transpose();
  return (0.5 * (m + m.transpose())).eval();
}

}  // namespace graphrf
