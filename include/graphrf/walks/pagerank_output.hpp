#pragma once
// HDF5 layout of a `pagerank` run, rows in canonical node order (ascending original id).
#include "graphrf/io/h5_output.hpp"
#include "graphrf/walks/pagerank_run.hpp"

namespace graphrf {

// /nodes/id (and /nodes/name), /pagerank/estimate, /pagerank/exact with the reference, the run's parameters and
// figures as attributes of /pagerank; rows in canonical node order. Collective.
void write_pagerank_result(H5Output& out, const DistributedGraph& g, const PageRankResult& result);

}  // namespace graphrf
