#pragma once
// Exact linear assignment: the permutation sigma minimising sum_q cost(q, sigma(q)) of a square cost matrix,
// by shortest augmenting paths with dual potentials: the Hungarian method in the form of Jonker and
// Volgenant 1987, "A shortest augmenting path algorithm for dense and sparse linear assignment problems",
// O(m^3). Used to learn sigma-couplings of walk lengths (Reid et al. 2025b, "Variance-reducing couplings for
// random features", App. C.3). Debian ships no maintained C/C++ assignment library, hence this one.
#include <vector>

namespace graphrf {

// `cost` is row-major m x m with finite entries. Returns sigma (0-based): row q is assigned column sigma[q].
std::vector<int> solve_linear_assignment(const std::vector<double>& cost, int m);

// sum_q cost(q, sigma(q)).
double assignment_cost(const std::vector<double>& cost, const std::vector<int>& sigma);

}  // namespace graphrf
