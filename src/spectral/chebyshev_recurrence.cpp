// The shifted Chebyshev recurrence on row-major panels, fused into the operator's sparse product when the
// operator offers it. See chebyshev_recurrence.hpp.
#include "graphrf/spectral/chebyshev_recurrence.hpp"

#include <cmath>
#include <string>

#include "graphrf/core/error.hpp"

namespace graphrf {

ChebyshevRecurrence::ChebyshevRecurrence(const DistributedOperator& op, double lambda_max, const Eigen::MatrixXd& x_local)
    : op_(&op), a1_(lambda_max / 2), a2_(lambda_max / 2), current_(x_local) {
  if (!(lambda_max > 0.0) || !std::isfinite(lambda_max))
    throw Error("ChebyshevRecurrence: lambda_max must be a positive finite number (got " + std::to_string(lambda_max) + ")");
  if (x_local.rows() != op.n_local)
    throw Error("ChebyshevRecurrence: the block has " + std::to_string(x_local.rows()) + " rows, expected n_local = " +
                std::to_string(op.n_local));
}

void ChebyshevRecurrence::advance(RowPanel* out, double coeff) {
  const Eigen::Index n = current_.rows(), b = current_.cols();
  const bool first = degree_ == 0;
  const double scale = first ? 1.0 / a1_ : 2.0 / a1_;
  if (first) previous_.resize(n, b);  // receives Tb_1; Tb_0 stays in current_ until the swap
  const double* prev = first ? nullptr : previous_.data();
  double* acc = out ? out->data() : nullptr;
  if (op_->fused_step) {
    op_->fused_step(current_.data(), prev, previous_.data(), acc, b, scale, a2_, coeff);
  } else {
    Eigen::MatrixXd lx(n, b);
    op_->apply(Eigen::MatrixXd(current_), lx);
    for (Eigen::Index i = 0; i < n; ++i)
      for (Eigen::Index c = 0; c < b; ++c) {
        double v = scale * (lx(i, c) - a2_ * current_(i, c));
        if (prev) v -= previous_(i, c);
        previous_(i, c) = v;
        if (acc) (*out)(i, c) += coeff * v;
      }
  }
  current_.swap(previous_);
  ++degree_;
}

}  // namespace graphrf
