#include "graphrf/gp/batched_conjugate_gradient.hpp"

#include <algorithm>
#include <cmath>

namespace graphrf {

int CgResult::most_iterations() const { return iterations.empty() ? 0 : *std::max_element(iterations.begin(), iterations.end()); }

CgResult batched_conjugate_gradient(const BlockOperator& a, const Eigen::MatrixXd& b, const ColumnDots& dots,
                                    const CgOptions& options) {
  const Eigen::Index n = b.rows(), m = b.cols();
  CgResult out;
  out.x = Eigen::MatrixXd::Zero(n, m);
  out.iterations.assign(static_cast<size_t>(m), 0);
  out.alpha.resize(static_cast<size_t>(m));
  out.beta.resize(static_cast<size_t>(m));
  Eigen::MatrixXd r = b, p = b;
  Eigen::VectorXd rr = dots(r, r);
  const Eigen::VectorXd target = options.tolerance * options.tolerance * rr;
  std::vector<bool> active(static_cast<size_t>(m));
  for (Eigen::Index k = 0; k < m; ++k) active[static_cast<size_t>(k)] = rr(k) > 0;
  for (int it = 0; it < options.max_iterations; ++it) {
    if (std::none_of(active.begin(), active.end(), [](bool x) { return x; })) break;
    const Eigen::MatrixXd ap = a(p);
    const Eigen::VectorXd pap = dots(p, ap);
    for (Eigen::Index k = 0; k < m; ++k) {
      if (!active[static_cast<size_t>(k)]) continue;
      const double alpha = rr(k) / pap(k);
      out.x.col(k) += alpha * p.col(k);
      r.col(k) -= alpha * ap.col(k);
      out.alpha[static_cast<size_t>(k)].push_back(alpha);
      ++out.iterations[static_cast<size_t>(k)];
    }
    const Eigen::VectorXd rr_new = dots(r, r);
    for (Eigen::Index k = 0; k < m; ++k) {
      if (!active[static_cast<size_t>(k)]) continue;
      const double beta = rr_new(k) / rr(k);
      out.beta[static_cast<size_t>(k)].push_back(beta);
      p.col(k) = r.col(k) + beta * p.col(k);
      rr(k) = rr_new(k);
      if (!(rr(k) > target(k))) active[static_cast<size_t>(k)] = false;
    }
  }
  out.converged = std::none_of(active.begin(), active.end(), [](bool x) { return x; });
  return out;
}

ColumnDots reproducible_column_dots(const RowBlockReducer& reducer) {
  return [&reducer](const Eigen::MatrixXd& x, const Eigen::MatrixXd& y) -> Eigen::VectorXd {
    const Eigen::MatrixXd products = x.cwiseProduct(y);
    const Eigen::MatrixXd ones = Eigen::MatrixXd::Ones(x.rows(), 1);
    return reducer.cross(ones, products).row(0).transpose();
  };
}

}  // namespace graphrf
