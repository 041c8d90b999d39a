#pragma once
// The shifted Chebyshev blocks Tb_0 X, Tb_1 X, Tb_2 X, ... of an operator on [0, lambda_max], one step at a
// time, kept as row-major panels (row i's b entries contiguous) so a sparse product reads each neighbour row
// as one contiguous run. Three-term recurrence with a1 = a2 = lambda_max / 2:
//   Tb_1 = (1 / a1) (Op Tb_0 - a2 Tb_0),   Tb_k = (2 / a1) (Op Tb_{k-1} - a2 Tb_{k-1}) - Tb_{k-2}.
// With the operator's fused step (distributed_operator.hpp) a step is one pass over the rows: the sparse
// product, the recurrence and an optional accumulation out += c Tb_k, writing Tb_k over Tb_{k-2} (two panels
// in all, no temporaries). Without it, the same per-entry formula runs on the result of op.apply: the same bits.
// Where the operator offers panels its host shares (new_host_panel), both panels live there: a step reads the
// host peers' rows of Tb_{k-1} in place, after one host barrier (Tb_{k-1} is complete on every rank, and no rank
// still reads Tb_{k-2}, which the step overwrites).
#include <Eigen/Dense>

#include "graphrf/mpi/distributed_operator.hpp"
#include "graphrf/mpi/shared_array.hpp"

namespace graphrf {

using RowPanel = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstPanelView = Eigen::Map<const RowPanel>;

class ChebyshevRecurrence {
 public:
  // Starts at Tb_0 = X (this rank's rows). lambda_max > 0. Collective over the host when the operator shares panels.
  ChebyshevRecurrence(const DistributedOperator& op, double lambda_max, const Eigen::MatrixXd& x_local);

  // Collective. Moves to Tb_{k+1}; with out != nullptr (an n_local x b panel) also out += coeff * Tb_{k+1}.
  void advance(RowPanel* out = nullptr, double coeff = 0.0);

  int degree() const { return degree_; }                                            // k
  ConstPanelView current() const { return {current_.data, rows_, cols_}; }          // Tb_k
  ConstPanelView previous() const { return {previous_.data, rows_, cols_}; }        // Tb_{k-1} (k >= 1)

 private:
  // n x b entries, private or in the host's shared window.
  struct Panel {
    RowPanel own;
    SharedArray<double> shared;
    double* data = nullptr;
  };
  Panel new_panel() const;

  const DistributedOperator* op_;
  double a1_, a2_;
  int degree_ = 0;
  Eigen::Index rows_, cols_;
  Panel current_, previous_;
};

}  // namespace graphrf
