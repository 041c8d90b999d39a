#pragma once
// Kernels of the combinatorial Laplacian L = D - A (d_i the weighted degree; PyGSP's `combinatorial`) by
// graph random features. Walks need a walk matrix with a convergent series, so they run on
//   W = I - L / d_max = (A + diag(d_max - d_i)) / d_max,   d_max = max_i d_i,
// which is nonnegative and symmetric with every row summing to 1 (rho(W) = 1, as for the normalised
// adjacency): each node gains a self-loop of weight (d_max - d_i) / d_max. A kernel h(L) is then
// h(d_max (I - W)), a series in W whose beta is beta * d_max (KernelSpec::laplacian_scale).
#include "graphrf/graph/distributed_graph.hpp"
#include "graphrf/graph/graph_statistics.hpp"
#include "graphrf/grf/kernel.hpp"
#include "graphrf/walks/walk_options.hpp"

namespace graphrf {

// Under --weights combinatorial: walk.max_degree and kernel.laplacian_scale become d_max (1 for a graph
// without edges, whose L is 0 and whose W is I). Otherwise nothing changes. Collective.
void bind_combinatorial_laplacian(const DistributedGraph& g, WalkOptions& walk, KernelSpec& kernel);

// The number of coefficients f_0 .. f_{K-1} that hold all but `tolerance` of sum_t |f_t| (at most
// `max_terms`): how long walks must be for the series of this kernel. Grows like beta * d_max.
int series_terms_needed(const KernelSpec& kernel, double tolerance = 1e-6, int max_terms = 4097);

// Relative variance Var[S] / E[S]^2 of one walker's estimate S = sum_{t <= T} |f_t| load_t of its row's sum of
// |f|-weighted visits, when every hop multiplies the load by 1 / (1 - p) (weighted steps on the combinatorial
// W, whose rows sum to 1, do exactly that) and the walk halts with probability p before each hop, T =
// f.size() - 1 (max_length). E[S^2] = sum_{s,t} |f_s| |f_t| (1 - p)^-min(s,t), E[S] = sum_t |f_t|.
// With n walkers the row sum's relative standard error is sqrt(this / n); uniform steps add the spread of
// the arc factors on top. It grows like exp(beta d_max (1/sqrt(1 - p) - 1)) for diffusion.
double row_sum_relative_variance(const std::vector<double>& f, double p_halt);

}  // namespace graphrf
