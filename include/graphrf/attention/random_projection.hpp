#pragma once
// Frequency matrices for random features: every row w_i has the marginal law N(0, I_dim), so any estimator that is
// unbiased with i.i.d. Gaussian frequencies stays unbiased; the draws differ only in how the rows depend on each
// other.
//
//   iid             rows independent N(0, I_dim).
//   orthogonal      blocks of dim rows (Yu et al. 2016): the directions of a block are the rows of a
//                   Haar-random orthogonal matrix (QR of a Gaussian matrix, sign-fixed with diag(R)), each
//                   scaled by an independent chi_dim norm (|g| of a fresh Gaussian vector, Performer
//                   `scaling=0`). m > dim stacks independent blocks and truncates the last one.
//   orthogonal_pnc  as orthogonal, but inside each block the directions (2j, 2j+1) get the negatively
//                   coupled norms F^-1(u), F^-1(1-u), u ~ U(0,1), F the chi_dim CDF (pairwise norm coupling,
//                   Reid et al. 2025b, "Variance-reducing couplings for random features", Def. 3.3 and
//                   Thm 3.2); with dim odd the last direction of a block keeps an independent norm.
//   importance      not a draw of this file: favor's importance-sampled frequencies Sigma*^1/2 g_i, with the g_i
//                   drawn as `orthogonal` here (importance_sampling.hpp, FeatureMap); draw_frequencies rejects it.
//   antithetic      (a flag on top of any draw) rows 0 .. m/2-1 are drawn as above and rows m/2 .. m-1 are
//                   their negatives: row m/2 + i == -row i (Reid et al. 2025b, Thm 3.5). m must
//                   be even.
//
// Every random number comes from philox_block(seed, RngDomain::feature_draw, block, purpose, row, column/2):
// keyed by the position in the matrix, never by the rank, so every rank draws bit-identical matrices. The
// first k rows of an m-row draw do not depend on m (without antithetic), so a larger m extends a smaller one.
#include <Eigen/Dense>

#include <cstdint>
#include <string_view>

namespace graphrf {

enum class FrequencyDraw { iid, orthogonal, orthogonal_pnc, importance };

// The field of FeatureOptions that error messages name (the apps show its flag, --draw).
inline constexpr std::string_view kDrawOption = "features.draw";

// "iid", "orthogonal", "orthogonal+pnc", "importance". InputError: "features.draw: unknown frequency draw 'x' (expected ...)".
FrequencyDraw parse_frequency_draw(std::string_view name);
// Inverse of parse_frequency_draw.
std::string_view frequency_draw_name(FrequencyDraw draw);

// The chi distribution with dim degrees of freedom (law of |g|, g ~ N(0, I_dim)).
// chi_cdf(dim, r) = P(dim/2, r^2/2) (regularised lower incomplete gamma).
double chi_cdf(int dim, double r);
// F^-1(u) = sqrt(2 P^-1(dim/2, u)) for u in (0, 1).
double chi_quantile(int dim, double u);
// F^-1(1 - u), computed from the upper incomplete gamma so that it keeps full precision for small u.
double chi_upper_quantile(int dim, double u);

// An m x dim frequency matrix (see above). Requires m >= 0, dim >= 1, and m even when antithetic;
// violations (and FrequencyDraw::importance) are programming errors (std::invalid_argument): option checks
// belong to FeatureMap.
Eigen::MatrixXd draw_frequencies(int m, int dim, FrequencyDraw draw, bool antithetic, std::uint64_t seed);

}  // namespace graphrf
