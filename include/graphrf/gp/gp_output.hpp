#pragma once
// HDF5 layout of a GP regression, rows in canonical node order (ascending original id): /nodes/id (and
// /nodes/name for string ids); /gp/node_id, /gp/mean, /gp/variance, /gp/y (NaN where unobserved), /gp/split
// (0 train, 1 test, 2 unobserved), /gp/samples (N x S) and with exact variances /gp/sample_variance;
// /gp/theta/f with the learned theta (sigma_f, beta, sigma_n, learn, normalize_y, y_mean, y_scale) as its group's
// attributes and the learning trace under /gp/theta/trace; the test figures as attributes of /gp/metrics and
// the exact-kernel comparison's of /gp/reference.
#include "graphrf/gp/gp_run.hpp"
#include "graphrf/io/h5_output.hpp"

namespace graphrf {

// Collective: the whole layout, the report's attributes included (not the provenance).
void write_gp(H5Output& out, const DistributedGraph& g, const GpRun& run);

}  // namespace graphrf
