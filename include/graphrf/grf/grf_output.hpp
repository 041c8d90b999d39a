#pragma once
// HDF5 layout of GRF results, rows and columns in canonical node order (ascending original id): /grf (anndata
// CSR, rows = start nodes, already divided by n; /grf2 for the second ensemble), with `with_by_length`
// /grf_by_length (indptr, indices, length, data sorted by row, column, length: M_t; 1.5x the bytes of /grf, so
// only on request), /kernel/{f, alpha}, /walks statistics, and under /launch/walks what depends on the launch
// (per-rank traffic and times, cross-rank hops). write_grf_result writes a whole `grf` run: /nodes, the above and
// the run's figures.
#include "graphrf/grf/grf_pipeline.hpp"
#include "graphrf/grf/grf_run.hpp"
#include "graphrf/io/h5_output.hpp"

namespace graphrf {

void write_grf(H5Output& out, const DistributedGraph& g, const GrfRun& run, const KernelSpec& kernel,
               const WalkOptions& walk, bool with_by_length);

// /nodes, write_grf (with /grf_by_length when the run kept M_t), the nnz per row of /grf and the report's
// attributes. Collective.
void write_grf_result(H5Output& out, const DistributedGraph& g, const GrfResult& result, const GrfRunOptions& options);

}  // namespace graphrf
