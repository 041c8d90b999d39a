#include "graphrf/spectral/wavelet_output.hpp"

#include "graphrf/graph/canonical_order.hpp"
#include "graphrf/graph/graph_output.hpp"
#include "graphrf/io/report_output.hpp"

namespace graphrf {

void write_wavelet_result(H5Output& out, const DistributedGraph& g, const WaveletRunResult& result,
                          const WaveletRunOptions& options) {
  const WaveletResult& f = result.features;
  write_nodes(out, g);
  const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> rows = f.embedding_local;
  write_node_rows<double>(out, CanonicalOrder(g), "/embedding",
                          std::span<const double>(rows.data(), static_cast<size_t>(rows.size())),
                          {static_cast<std::uint64_t>(rows.cols())});
  out.write_replicated<double>("/spectrum/lambda_K", std::vector<double>{f.lambda_k});
  out.write_replicated<double>("/spectrum/coefficients_chi", f.coeff_chi);
  out.write_replicated<double>("/spectrum/coefficients_h", f.coeff_h);
  out.set_attribute("/spectrum", "kernel", options.kernel_description);
  out.set_attribute("/spectrum", "laplacian", std::string(wavelet_laplacian_name(options.laplacian)));
  out.set_attribute("/spectrum", "subspace_iterations", static_cast<std::int64_t>(f.subspace_iterations));
  write_report(out, result.report);
}

}  // namespace graphrf
