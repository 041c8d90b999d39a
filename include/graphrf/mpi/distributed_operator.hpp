#pragma once
// A symmetric linear operator (typically the normalised Laplacian L~ = I - D^{-1/2} A D^{-1/2}) acting on
// N x b blocks distributed by rows. This is the only thing the random wavelet feature code (chebyshev.hpp,
// spectrum_estimate.hpp, tall_skinny_qr.hpp, random_wavelet_features.hpp) knows about the graph: whoever
// owns the distributed graph builds one of these (ghost-row exchange included in `apply`).
//
// Contract for `apply` (collective: every rank calls it together, with the same number of columns):
//  - x_local is n_local x b (this rank's rows, in local order); y_local arrives sized n_local x b and every
//    entry must be overwritten with the matching rows of Op x.
//  - Op must be symmetric (the Chebyshev and Lanczos code assume a real spectrum).
//  - Reproducibility: for results that do not depend on the rank count or the partition, each output row
//    must be computed with a fixed order of operations that depends only on the graph, e.g. sum over the
//    row's neighbours in ascending original id, never in an order that depends on which neighbours are ghosts.
#include <Eigen/Dense>

#include <cstdint>
#include <functional>
#include <vector>

#include "graphrf/mpi/communicator.hpp"
#include "graphrf/mpi/shared_array.hpp"

namespace graphrf {

// A symmetric linear operator on row-distributed N x b blocks: this rank owns global rows
// [first_row, first_row + n_local).
struct DistributedOperator {
  const Communicator* comm = nullptr;
  std::int64_t n_global = 0;
  std::int64_t first_row = 0;
  std::int64_t n_local = 0;
  // Per owned row: the key used for random streams and for reproducible sums (the node's ORIGINAL id, so
  // draws and summation orders do not depend on the partition or the rank count). Over all ranks the keys
  // must be a permutation of 0 .. n_global - 1.
  std::vector<std::int64_t> row_keys;
  // y = Op x (collective: all ranks call together).
  std::function<void(const Eigen::MatrixXd& x_local, Eigen::MatrixXd& y_local)> apply;

  // Optional (speed only): one fused step of a three-term recurrence on row-major panels, where row i's b
  // entries are contiguous (cur, prev, next, out are n_local x b). For every entry, in this order of operations:
  //   next = scale * ((Op cur) - shift * cur) [- prev, if prev != nullptr];  out += coeff * next  (if out != nullptr)
  // with (Op cur) computed exactly as `apply` computes it. next may be the same storage as prev, never as cur.
  // Without it, callers run the same formula on the result of `apply` (same bits, more memory traffic).
  using FusedStep = std::function<void(const double* cur, const double* prev, double* next, double* out,
                                       Eigen::Index b, double scale, double shift, double coeff)>;
  FusedStep fused_step;

  // Optional (speed only), with fused_step, where ranks of one host share memory: a panel for n_local x b
  // row-major entries in a window the host's ranks share (this rank's rows at mine()). When the recurrence keeps
  // cur in such a panel, fused_step reads the host peers' rows of cur in place instead of receiving copies; the
  // caller synchronises the panel before each step (every rank's cur is written, and no rank still reads the
  // storage that next overwrites). Left empty, cur may be any storage.
  std::function<SharedArray<double>(Eigen::Index b)> new_host_panel;
};

}  // namespace graphrf
