#pragma once
// The normalised Laplacian L = I - D^-1/2 A D^-1/2 of a distributed graph as a DistributedOperator on
// N x b blocks: ghost rows of X arrive through the graph's neighbour exchange (b values per ghost), and
// each output row sums its neighbours in canonical (ascending id) order, so the result has the same bits
// for any rank count and partition. Row keys are canonical indices.
#include "graphrf/graph/distributed_graph.hpp"
#include "graphrf/mpi/distributed_operator.hpp"

namespace graphrf {

DistributedOperator normalized_laplacian_operator(const DistributedGraph& g);

// The combinatorial Laplacian L = D - A (d_i the weighted degree), the same way: its spectrum lies in
// [0, 2 max_i d_i], the operator PyGSP calls `combinatorial`.
DistributedOperator combinatorial_laplacian_operator(const DistributedGraph& g);

}  // namespace graphrf
