#include "graphrf/walks/linear_assignment.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "graphrf/core/error.hpp"

namespace graphrf {

// Rows are added one at a time; each addition grows a shortest-path tree over columns (reduced costs
// cost - u - v stay >= 0) until it reaches a free column, then flips the path. Potentials u, v are the
// dual variables: at the end every assigned pair has zero reduced cost, which proves optimality.
std::vector<int> solve_linear_assignment(const std::vector<double>& cost, int m) {
  if (m < 1 || cost.size() != static_cast<size_t>(m) * static_cast<size_t>(m))
    throw Error("solve_linear_assignment: cost is not " + std::to_string(m) + " x " + std::to_string(m));
  for (double c : cost)
    if (!std::isfinite(c)) throw Error("solve_linear_assignment: cost entries must be finite");
  const double inf = std::numeric_limits<double>::infinity();
  const auto n = static_cast<size_t>(m);
  // 1-based columns with a virtual column 0 that holds the row being inserted.
  std::vector<double> u(n + 1, 0.0), v(n + 1, 0.0), min_slack(n + 1);
  std::vector<size_t> row_of(n + 1, 0), previous(n + 1, 0);
  std::vector<bool> used(n + 1);
  auto c = [&](size_t row, size_t col) { return cost[(row - 1) * n + (col - 1)]; };
  for (size_t row = 1; row <= n; ++row) {
    row_of[0] = row;
    size_t col0 = 0;
    std::fill(min_slack.begin(), min_slack.end(), inf);
    std::fill(used.begin(), used.end(), false);
    do {
      used[col0] = true;
      const size_t r = row_of[col0];
      double delta = inf;
      size_t next = 0;
      for (size_t col = 1; col <= n; ++col) {
        if (used[col]) continue;
        const double slack = c(r, col) - u[r] - v[col];
        if (slack < min_slack[col]) {
          min_slack[col] = slack;
          previous[col] = col0;
        }
        if (min_slack[col] < delta) {
          delta = min_slack[col];
          next = col;
        }
      }
      for (size_t col = 0; col <= n; ++col) {
        if (used[col]) {
          u[row_of[col]] += delta;
          v[col] -= delta;
        } else {
          min_slack[col] -= delta;
        }
      }
      col0 = next;
    } while (row_of[col0] != 0);
    do {  // flip the augmenting path
      const size_t before = previous[col0];
      row_of[col0] = row_of[before];
      col0 = before;
    } while (col0 != 0);
  }
  std::vector<int> sigma(n);
  for (size_t col = 1; col <= n; ++col) sigma[row_of[col] - 1] = static_cast<int>(col - 1);
  return sigma;
}

double assignment_cost(const std::vector<double>& cost, const std::vector<int>& sigma) {
  const size_t n = sigma.size();
  double total = 0;
  for (size_t q = 0; q < n; ++q) total += cost[q * n + static_cast<size_t>(sigma[q])];
  return total;
}

}  // namespace graphrf
