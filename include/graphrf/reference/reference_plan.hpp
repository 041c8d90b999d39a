#pragma once
// How `--reference` checks a result: densely on rank 0 up to --dense-reference-max nodes (the exact N x N
// matrix from one eigendecomposition, O(N^3) time and O(N^2) memory on one core), and above that from the
// exact rows of a uniform sample of --reference-samples nodes (matrix-function columns by a Chebyshev
// expansion on the distributed operator), reported with the standard error of the sampled estimate.
#include <cstdint>
#include <string>

namespace graphrf {

struct ReferenceOptions {
  bool enabled = false;
  std::int64_t dense_max = 2000;  // nodes
  std::int64_t samples = 64;      // sampled nodes above dense_max
};

// Largest --dense-reference-max: an N x N double matrix is 200 MB at 5000 nodes.
inline constexpr std::int64_t kMaxDenseReferenceNodes = 5000;

// Throws InputError naming the option when dense_max or samples are out of range.
void validate(const ReferenceOptions& options);

inline bool dense_reference(const ReferenceOptions& options, std::int64_t n_nodes) { return n_nodes <= options.dense_max; }

// Seconds one core needs for a dense symmetric eigendecomposition with eigenvectors of an n x n matrix, from
// Eigen's SelfAdjointEigenSolver on this project's development machine (about 1.2e-9 n^3 s); a rough guide.
double dense_eigendecomposition_seconds(std::int64_t n);

// N x N double matrices grf's dense reference adds on rank 0 at its peak: W, the estimate, the eigenvectors and
// the exact kernel, with the products' temporaries (the run summary's peak memory grew by 4.2 of them at
// N = 1600 with --out; two-ensemble estimators hold one more while the estimate is formed).
inline constexpr double kDenseReferenceMatrices = 5;

// Bytes rank 0 needs for grf's dense reference on n_nodes (0 when the sampled reference runs instead).
double dense_reference_bytes(const ReferenceOptions& options, std::int64_t n_nodes);

// One line saying which reference runs and what it costs, for --help and the start of the reference phase.
std::string reference_cost(const ReferenceOptions& options, std::int64_t n_nodes);

}  // namespace graphrf
