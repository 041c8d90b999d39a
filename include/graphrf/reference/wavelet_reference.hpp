#pragma once
// `wavelet --reference`: the relative errors of Phi Phi^T against h(L). Dense (up to --dense-reference-max nodes,
// one eigendecomposition on rank 0): spectral and Frobenius, each beside the best rank-K and rank-(K + r) errors
// of h(L) (the embedding has K + r columns); above that, Frobenius from the exact rows of h(L) for a sample of
// nodes, with its standard error.
#include "graphrf/core/report.hpp"
#include "graphrf/reference/reference_plan.hpp"
#include "graphrf/spectral/wavelet_run.hpp"

namespace graphrf {

// Logs the plan and the errors; returns them as figures (spectral_error, best_spectral_error, frobenius_error,
// best_frobenius_error, best_kr_spectral_error, best_kr_frobenius_error when dense; frobenius_error,
// frobenius_error_se, reference_samples when sampled) with their /embedding attributes. Collective.
Report wavelet_reference(const DistributedGraph& g, const WaveletRunResult& result, const WaveletRunOptions& options,
                         const ReferenceOptions& reference, const Log& log);

}  // namespace graphrf
