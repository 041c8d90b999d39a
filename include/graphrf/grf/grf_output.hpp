#pragma once
// HDF5 layout of GRF results: /grf (anndata CSR, rows = start nodes, already divided by n; /grf2 for the
// second ensemble), /grf_by_length (indptr, indices, length, data sorted by row, column, length: M_t),
// /kernel/{f, alpha}, and /walks statistics.
#include "graphrf/grf/grf_pipeline.hpp"
#include "graphrf/io/h5_output.hpp"

namespace graphrf {

void write_grf(H5Output& out, const DistributedGraph& g, const GrfRun& run, const KernelSpec& kernel,
               const WalkOptions& walk);

// The distributed CSR rows as anndata/scipy CSR (columns sorted within rows, as SparseRows keeps them).
void write_sparse_rows(H5Output& out, const std::string& group, const SparseRows& rows, std::int64_t n_cols);

}  // namespace graphrf
