#pragma once
// HDF5 layout of a `wavelet` run, rows in canonical node order (ascending original id).
#include "graphrf/io/h5_output.hpp"
#include "graphrf/spectral/wavelet_run.hpp"

namespace graphrf {

// /nodes, /embedding (N x (K + r)), /spectrum (lambda_K, the Chebyshev coefficients, kernel, Laplacian, K, r,
// subspace iterations) and the report's attributes. Collective.
void write_wavelet_result(H5Output& out, const DistributedGraph& g, const WaveletRunResult& result,
                          const WaveletRunOptions& options);

}  // namespace graphrf
