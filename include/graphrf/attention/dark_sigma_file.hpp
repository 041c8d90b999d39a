#pragma once
// A DARKFormer Sigma from outside (`--dark-sigma FILE`), e.g. learned by a training run, instead of the
// whitening Lambda^-1 (Farzam et al. 2026, "Data-aware random feature kernel for transformers", Eq. 3,
// Sigma = M^T M). The HDF5 file holds one of:
//   /sigma  d x d, symmetric positive semidefinite: M = Sigma^1/2 (symmetric root, d x d);
//   /M      r x d with 1 <= r <= d: used as it is.
// d is the dimension of the queries and keys; Sigma acts on the inputs scaled by d^-1/4, so the kernel is
// exp(q^T Sigma k / sqrt(d)). Every head uses the same Sigma.
#include <Eigen/Dense>

#include <string>
#include <string_view>

namespace graphrf {

inline constexpr std::string_view kDarkSigmaOption = "--dark-sigma";

// Reads and checks the file (each rank on its own; the file is small). InputError "--dark-sigma PATH: ..."
// naming what is wrong: not HDF5, neither or both of /sigma and /M, a shape other than d x d or r x d with
// r <= d, non-finite entries, /sigma not symmetric (beyond 1e-12 relative) or not positive semidefinite (an
// eigenvalue below -1e-12 times the largest). Returns M (r x d).
Eigen::MatrixXd read_dark_sigma_file(const std::string& path, int d);

}  // namespace graphrf
