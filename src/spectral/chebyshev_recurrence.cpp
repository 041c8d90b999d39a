// The shifted Chebyshev recurrence on row-major panels, fused into the operator's sparse product when the
// operator offers it. See chebyshev_recurrence.hpp.
#include "graphrf/spectral/chebyshev_recurrence.hpp"

#include <cmath>
#include <string>
#include <utility>

#include "graphrf/core/error.hpp"

namespace graphrf {

ChebyshevRecurrence::ChebyshevRecurrence(const DistributedOperator& op, double lambda_max, const Eigen::MatrixXd& x_local)
    : op_(&op), a1_(lambda_max / 2), a2_(lambda_max / 2), rows_(x_local.rows()), cols_(x_local.cols()) {
  if (!(lambda_max > 0.0) || !std::isfinite(lambda_max))
    throw Error("ChebyshevRecurrence: lambda_max must be a positive finite number (got " + std::to_string(lambda_max) + ")");
  if (x_local.rows() != op.n_local)
    throw Error("ChebyshevRecurrence: the block has " + std::to_string(x_local.rows()) + " rows, expected n_local = " +
                std::to_string(op.n_local));
  current_ = new_panel();
  previous_ = new_panel();
  Eigen::Map<RowPanel>(current_.data, rows_, cols_) = x_local;
}

ChebyshevRecurrence::Panel ChebyshevRecurrence::new_panel() const {
  Panel p;
  if (op_->fused_step && op_->new_host_panel) {
    p.shared = op_->new_host_panel(cols_);
    p.data = p.shared.mine();
  } else {
    p.own.resize(rows_, cols_);
    p.data = p.own.data();
  }
  return p;
}

void ChebyshevRecurrence::advance(RowPanel* out, double coeff) {
  const Eigen::Index n = rows_, b = cols_;
  const bool first = degree_ == 0;
  const double scale = first ? 1.0 / a1_ : 2.0 / a1_;
  const double* prev = first ? nullptr : previous_.data;
  double* acc = out ? out->data() : nullptr;
  if (op_->fused_step) {
    // Host peers read my Tb_k in place: it must be complete on every rank, and nobody may still read Tb_{k-1}.
    current_.shared.synchronize();
    op_->fused_step(current_.data, prev, previous_.data, acc, b, scale, a2_, coeff);
  } else {
    const ConstPanelView cur = current();
    Eigen::MatrixXd lx(n, b);
    op_->apply(Eigen::MatrixXd(cur), lx);
    Eigen::Map<RowPanel> next(previous_.data, n, b);
    for (Eigen::Index i = 0; i < n; ++i)
      for (Eigen::Index c = 0; c < b; ++c) {
        double v = scale * (lx(i, c) - a2_ * cur(i, c));
        if (prev) v -= next(i, c);
        next(i, c) = v;
        if (acc) (*out)(i, c) += coeff * v;
      }
  }
  std::swap(current_, previous_);
  ++degree_;
}

}  // namespace graphrf
