#pragma once
// HDF5 layout of GRF-masked attention, rows in canonical node order (ascending original id): /nodes;
// /attention/output and /attention/linear_unmasked (N x d_v, or N x H x d_v for several heads, `axes` says
// which), /attention/stats (nnz_per_row, denominator_min per head, bad_rows), the feature map and estimator as
// attributes of /attention, per-rank pass times and bytes under /launch/attention, and with save_grf what
// `graphrf grf` writes for head 0 (grf_output.hpp).
#include "graphrf/attention/attention_run.hpp"
#include "graphrf/io/h5_output.hpp"

namespace graphrf {

// Collective: the whole layout but the references' errors (reference/attention_head_errors.hpp) and provenance.
void write_attention(H5Output& out, const DistributedGraph& g, const AttentionRun& run);

}  // namespace graphrf
