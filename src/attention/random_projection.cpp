// Frequency matrices for random features: i.i.d., orthogonal blocks with chi norms, pairwise norm
// coupling, antithetic pairs. See random_projection.hpp.
#include "graphrf/attention/random_projection.hpp"

#include <boost/math/special_functions/gamma.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "graphrf/core/counter_rng.hpp"
#include "graphrf/core/error.hpp"

namespace graphrf {
namespace {

// Second key word of philox_block: what a draw is for, so that the streams never overlap.
enum Purpose : std::uint64_t {
  kIidEntry = 0,      // entries of i.i.d. rows
  kBlockEntry = 1,    // entries of the Gaussian matrix whose QR gives a block's directions
  kNormVector = 2,    // the Gaussian vector whose length is a chi norm
  kPncUniform = 3,    // the uniform u of a norm-coupled pair
};

// Fills `out` (length dim) with independent standard normals keyed by (block, purpose, row, column).
void gaussian_row(std::uint64_t seed, std::uint64_t block, Purpose purpose, std::uint64_t row, Eigen::Ref<Eigen::VectorXd> out) {
  const Eigen::Index dim = out.size();
  for (Eigen::Index c = 0; c < dim; c += 2) {
    const auto w = philox_block(seed, RngDomain::feature_draw, block, purpose, row, static_cast<std::uint64_t>(c / 2));
    const auto [z0, z1] = standard_normal_pair(w[0], w[1]);
    out(c) = z0;
    if (c + 1 < dim) out(c + 1) = z1;
  }
}

// An independent chi_dim variate: the length of a fresh Gaussian vector.
double chi_norm(std::uint64_t seed, std::uint64_t block, std::uint64_t row, int dim) {
  Eigen::VectorXd g(dim);
  gaussian_row(seed, block, kNormVector, row, g);
  return g.norm();
}

// Uniform in the open interval (0, 1): the midpoints of 2^53 equal cells, so both F^-1(u) and F^-1(1-u)
// are finite.
double open_open_uniform(std::uint64_t bits) { return (static_cast<double>(bits >> 11) + 0.5) * 0x1.0p-53; }

// Rows of one orthogonal block (rows_wanted <= dim of them): Haar directions times chi norms.
void orthogonal_block(std::uint64_t seed, std::uint64_t block, int dim, bool pnc, Eigen::Ref<Eigen::MatrixXd> out) {
  const int rows_wanted = static_cast<int>(out.rows());
  Eigen::MatrixXd z(dim, dim);
  for (int r = 0; r < dim; ++r) {
    Eigen::VectorXd row(dim);
    gaussian_row(seed, block, kBlockEntry, static_cast<std::uint64_t>(r), row);
    z.row(r) = row.transpose();
  }
  Eigen::HouseholderQR<Eigen::MatrixXd> qr(z);
  Eigen::MatrixXd q = qr.householderQ();
  // Q diag(sign(diag R)) is exactly Haar distributed (Mezzadri 2007); a zero diagonal has probability 0.
  for (int j = 0; j < dim; ++j)
    if (qr.matrixQR()(j, j) < 0) q.col(j) = -q.col(j);

  std::vector<double> norms(static_cast<std::size_t>(dim));
  int first_free = 0;
  if (pnc) {
    for (int j = 0; 2 * j + 1 < dim; ++j) {
      const auto w = philox_block(seed, RngDomain::feature_draw, block, kPncUniform, static_cast<std::uint64_t>(j));
      const double u = open_open_uniform(w[0]);
      norms[static_cast<std::size_t>(2 * j)] = chi_quantile(dim, u);
      norms[static_cast<std::size_t>(2 * j + 1)] = chi_upper_quantile(dim, u);
    }
    first_free = dim - dim % 2;
  }
  for (int i = first_free; i < dim; ++i) norms[static_cast<std::size_t>(i)] = chi_norm(seed, block, static_cast<std::uint64_t>(i), dim);

  // The directions are the rows of Q^T, i.e. the columns of Q.
  for (int i = 0; i < rows_wanted; ++i) out.row(i) = norms[static_cast<std::size_t>(i)] * q.col(i).transpose();
}

Eigen::MatrixXd draw_directions(int m, int dim, FrequencyDraw draw, std::uint64_t seed) {
  Eigen::MatrixXd w(m, dim);
  for (int start = 0; start < m; start += dim) {
    const int rows = std::min(dim, m - start);
    const auto block = static_cast<std::uint64_t>(start / dim);
    if (draw == FrequencyDraw::iid) {
      for (int r = 0; r < rows; ++r) {
        Eigen::VectorXd row(dim);
        gaussian_row(seed, block, kIidEntry, static_cast<std::uint64_t>(r), row);
        w.row(start + r) = row.transpose();
      }
    } else {
      orthogonal_block(seed, block, dim, draw == FrequencyDraw::orthogonal_pnc, w.middleRows(start, rows));
    }
  }
  return w;
}

}  // namespace

FrequencyDraw parse_frequency_draw(std::string_view name) {
  if (name == "iid") return FrequencyDraw::iid;
  if (name == "orthogonal") return FrequencyDraw::orthogonal;
  if (name == "orthogonal+pnc") return FrequencyDraw::orthogonal_pnc;
  if (name == "importance") return FrequencyDraw::importance;
  throw InputError(std::string(kDrawOption) + ": unknown frequency draw '" + std::string(name) +
                   "' (expected iid, orthogonal, orthogonal+pnc or importance)");
}

std::string_view frequency_draw_name(FrequencyDraw draw) {
  switch (draw) {
    case FrequencyDraw::iid: return "iid";
    case FrequencyDraw::orthogonal: return "orthogonal";
    case FrequencyDraw::orthogonal_pnc: return "orthogonal+pnc";
    case FrequencyDraw::importance: return "importance";
  }
  return "?";
}

double chi_cdf(int dim, double r) {
  if (dim < 1) throw std::invalid_argument("chi_cdf: dim must be >= 1");
  if (!(r > 0)) return 0.0;
  if (std::isinf(r)) return 1.0;
  return boost::math::gamma_p(0.5 * dim, 0.5 * r * r);
}

double chi_quantile(int dim, double u) {
  if (dim < 1 || !(u > 0 && u < 1)) throw std::invalid_argument("chi_quantile: needs dim >= 1 and u in (0, 1)");
  return std::sqrt(2.0 * boost::math::gamma_p_inv(0.5 * dim, u));
}

double chi_upper_quantile(int dim, double u) {
  if (dim < 1 || !(u > 0 && u < 1)) throw std::invalid_argument("chi_upper_quantile: needs dim >= 1 and u in (0, 1)");
  return std::sqrt(2.0 * boost::math::gamma_q_inv(0.5 * dim, u));
}

Eigen::MatrixXd draw_frequencies(int m, int dim, FrequencyDraw draw, bool antithetic, std::uint64_t seed) {
  if (m < 0 || dim < 1) throw std::invalid_argument("draw_frequencies: needs m >= 0 and dim >= 1");
  if (draw == FrequencyDraw::importance)
    throw std::invalid_argument("draw_frequencies: importance frequencies are drawn by FeatureMap from Sigma*");
  if (!antithetic) return draw_directions(m, dim, draw, seed);
  if (m % 2 != 0) throw std::invalid_argument("draw_frequencies: antithetic needs an even m");
  const int half = m / 2;
  Eigen::MatrixXd w(m, dim);
  w.topRows(half) = draw_directions(half, dim, draw, seed);
  w.bottomRows(half) = -w.topRows(half);
  return w;
}

}  // namespace graphrf
