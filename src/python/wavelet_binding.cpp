// Random wavelet features for Python: one run_wavelet on the graph with the options of `graphrf wavelet`, the
// embedding Phi (N x (K + r), Phi Phi^T ~ h(L)) in canonical node order: the numbers of /embedding (on a graph
// over several ranks: this rank's block of its rows).
#include "bindings.hpp"
#include "graphrf/graph/canonical_order.hpp"
#include "graphrf/spectral/wavelet_run.hpp"

namespace graphrf::python {

namespace {

py::dict wavelet(const GraphHandle& h, const py::dict& kernel_options, const std::string& laplacian,
                            const py::dict& o) {
  const DistributedGraph& g = *h.graph;
  const KernelSpec kernel = kernel_spec(kernel_options, WeightMode::normalized);
  WaveletRunOptions options;
  WaveletOptions& features = options.features;
  features.rank = o["embedding_dim"].cast<std::int64_t>();
  features.oversample = o["oversample"].cast<std::int64_t>();
  features.degree_chi = o["degree_chi"].cast<int>();
  features.subspace_iterations = o["subspace_iterations"].cast<int>();
  features.degree_h = o["degree_h"].cast<int>();
  features.eigencount_order = o["eigencount_order"].cast<int>();
  features.dichotomy_eps = o["dichotomy_eps"].cast<double>();
  features.count_tolerance = o["count_tolerance"].cast<double>();
  features.n_probe = o["probes"].cast<int>();
  features.seed = o["seed"].cast<std::uint64_t>();
  options.laplacian = parse_wavelet_laplacian(laplacian);
  options.kernel = [kernel](double lambda) { return kernel_of_laplacian_eigenvalue(kernel, lambda); };
  options.kernel_description = describe(kernel);
  std::vector<double> block;
  std::int64_t columns = 0, first_row = 0, rows_here = 0;
  CallWarnings warnings;
  {
    py::gil_scoped_release unlocked;
    const WaveletRunResult result = run_wavelet(g, options, warnings.log(*g.comm));
    const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> rows = result.features.embedding_local;
    columns = rows.cols();
    const CanonicalOrder order(g);
    first_row = order.blocks().first(g.comm->rank());
    rows_here = order.block_rows();
    block = order.route_rows<double>(std::span<const double>(rows.data(), static_cast<std::size_t>(rows.size())),
                                     static_cast<std::size_t>(columns));
  }
  warnings.issue();
  py::dict out;
  out["embedding"] = to_numpy(std::move(block)).reshape({rows_here, columns});
  out["first_row"] = first_row;  // the canonical index of this rank's first row
  return out;
}

}  // namespace

void bind_wavelet(py::module_& m) {
  m.def("wavelet", &wavelet, py::arg("graph"), py::arg("kernel"), py::arg("laplacian"), py::arg("features"));
}

}  // namespace graphrf::python
