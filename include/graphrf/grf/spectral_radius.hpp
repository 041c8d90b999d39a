#pragma once
// Spectral radius of the walk's W, needed to check that the kernel's power series converges.
#include <span>

#include "graphrf/graph/distributed_graph.hpp"
#include "graphrf/walks/walk_options.hpp"

namespace graphrf {

// Sparse product y = W x on owned rows (x and y indexed by owned node), exchanging ghost values of x;
// `source` is g.arc_sources(), computed once for all products.
void multiply_w(const DistributedGraph& g, const WalkOptions& options, std::span<const std::int64_t> source,
                const std::vector<double>& x, std::vector<double>& y);

// 1 for the normalised adjacency of a graph with edges and for the combinatorial W = I - (D - A) / d_max; for W = c * A, power iteration from a positive
// vector (A >= 0, so it converges to the Perron root from below; the result carries a 1% safety margin).
double spectral_radius(const DistributedGraph& g, const WalkOptions& options);

}  // namespace graphrf
