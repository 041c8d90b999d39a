// GRFs and walks for Python: one run_grf on the graph with the options of `graphrf grf` (checked as the CLI
// checks them, with its messages), its matrices returned in canonical node order: Phi = sum_t f_t M_t per
// ensemble (/grf, /grf2) and, for walks, the length-resolved M_t (/grf_by_length).
#include <pybind11/stl.h>

#include <sstream>

#include "bindings.hpp"
#include "graphrf/core/memory_size.hpp"
#include "graphrf/graph/canonical_rows.hpp"
#include "graphrf/grf/combinatorial_laplacian.hpp"
#include "graphrf/grf/grf_run.hpp"

namespace graphrf::python {

KernelSpec kernel_spec(const py::dict& o, WeightMode weights) {
  KernelSpec spec;
  const bool has_alpha = !o["alpha"].is_none(), has_f = !o["f"].is_none();
  if (has_alpha && has_f) throw InputError("--alpha and --f: give one of them, not both");
  spec.beta = o["beta"].cast<double>();
  spec.power = o["power"].cast<double>();
  spec.shift = o["shift"].cast<double>();
  const std::string kernel = o["kernel"].cast<std::string>();
  if (has_alpha || has_f) {
    const std::string series = has_alpha ? "--alpha" : "--f";
    const std::pair<std::string, bool> ignored[] = {
        {"kernel", kernel != "diffusion"}, {"beta", spec.beta != 1.0}, {"power", spec.power != 1.0}, {"shift", spec.shift != 2.0}};
    for (const auto& [name, set] : ignored)
      if (set) throw InputError(series + " and --" + name + ": " + series + " gives the series itself, so --" + name +
                                " would be ignored; give one of them");
    spec.kind = has_alpha ? KernelKind::alpha : KernelKind::f;
    spec.coefficients = o[has_alpha ? "alpha" : "f"].cast<std::vector<double>>();
    if (spec.coefficients.empty()) throw InputError(series + ": expected comma-separated numbers (got '')");
  } else {
    spec.kind = parse_kernel_kind(kernel);
  }
  validate_parameters(spec);
  if (weights == WeightMode::combinatorial && (spec.kind == KernelKind::exp_adjacency || spec.kind == KernelKind::p_step))
    throw InputError("--kernel " + std::string(kernel_kind_name(spec.kind)) + " and --weights combinatorial: " +
                     (spec.kind == KernelKind::exp_adjacency ? "exp(beta W) is a function of the walk matrix, not of L = D - A"
                                                              : "the p-step shift >= 2 presumes the normalised spectrum [0, 2]") +
                     "; use diffusion, regularized-laplacian, cosine, --alpha or --f");
  return spec;
}

WalkOptions walk_options(const py::dict& o) {
  WalkOptions w;
  w.walkers = o["walkers"].cast<std::int64_t>();
  w.p_halt = o["p_halt"].cast<double>();
  w.max_length = o["max_length"].cast<std::int64_t>();
  if (!o["fixed_length"].is_none()) {
    if (!o["p_halt_default"].cast<bool>() || !o["max_length_default"].cast<bool>())
      throw InputError("--fixed-length: give it instead of --p-halt and --max-length, not with them");
    w.fixed_length = true;
    w.max_length = o["fixed_length"].cast<std::int64_t>();
  }
  w.seed = o["seed"].cast<std::uint64_t>();
  w.coupling = parse_coupling(o["coupling"].cast<std::string>());
  if (!o["sigma"].is_none()) {
    if (termination_of(w.coupling) != Termination::sigma)
      throw InputError("--sigma: only used with --coupling sigma or sigma+repelling (got --coupling " +
                       std::string(coupling_name(w.coupling)) + ")");
    if (py::isinstance<py::str>(o["sigma"])) {
      w.sigma = read_sigma_file(o["sigma"].cast<std::string>());
    } else {
      std::ostringstream text;
      for (const auto v : o["sigma"].cast<std::vector<std::int64_t>>()) text << v << ' ';
      w.sigma = parse_sigma(text.str(), "sigma");
    }
  }
  w.step = parse_step_rule(o["step"].cast<std::string>());
  w.weights = parse_weight_mode(o["weights"].cast<std::string>());
  w.scale = o["scale"].cast<double>();
  if (w.weights == WeightMode::combinatorial && w.scale != 1.0)
    throw InputError("--scale and --weights combinatorial: the combinatorial walk matrix is scaled by 1/d_max itself; "
                     "--scale is for --weights raw");
  if (w.weights == WeightMode::normalized && w.scale != 1.0)
    throw InputError("--scale: applies to --weights raw (W = scale * A); the normalised W = D^-1/2 A D^-1/2 has no scale");
  validate(w);
  return w;
}

namespace {

py::tuple csr_tuple(CanonicalRows&& rows) {
  if (rows.length.empty())
    return py::make_tuple(to_numpy(std::move(rows.indptr)), to_numpy(std::move(rows.indices)), to_numpy(std::move(rows.data)));
  return py::make_tuple(to_numpy(std::move(rows.indptr)), to_numpy(std::move(rows.indices)), to_numpy(std::move(rows.length)),
                        to_numpy(std::move(rows.data)));
}

// One `graphrf grf` run. Returns {"phi": [(indptr, indices, data)] per ensemble, "by_length": [(indptr, indices,
// length, data)] per ensemble when asked, "f", "alpha", "first_row"}: this rank's block of canonical rows.
py::dict grf(const GraphHandle& h, const py::dict& kernel_options, const py::dict& walk_option_values,
             const std::string& estimator, bool by_length, const std::optional<std::string>& memory_limit) {
  const DistributedGraph& g = *h.graph;
  if (g.report.directed)
    throw InputError("grf: the graph was loaded directed; graph random features need an undirected graph (load it "
                     "without directed=True)");
  GrfRunOptions options;
  options.walk = walk_options(walk_option_values);
  options.kernel = kernel_spec(kernel_options, options.walk.weights);
  options.estimator = parse_estimator(estimator);
  options.by_length = by_length;
  if (memory_limit) options.memory_limit = parse_memory_size(*memory_limit, "--memory-limit");
  std::vector<CanonicalRows> phi, resolved;
  GrfResult result;
  std::int64_t first_row = 0;
  CallWarnings warnings;
  {
    py::gil_scoped_release unlocked;
    bind_combinatorial_laplacian(g, options.walk, options.kernel);
    const Log log = warnings.log(*g.comm);
    result = run_grf(g, options, log);
    const CanonicalOrder order(g);
    first_row = order.blocks().first(g.comm->rank());
    for (const SparseRows& p : result.run.phi) phi.push_back(canonical_rows(order, p.indptr, p.col, p.value));
    if (by_length)
      for (const LengthResolvedGrf& m : result.run.by_length)
        resolved.push_back(canonical_rows(order, m.indptr, m.col, m.value, m.length));
  }
  warnings.issue();
  py::dict out;
  py::list phi_list, resolved_list;
  for (auto& rows : phi) phi_list.append(csr_tuple(std::move(rows)));
  for (auto& rows : resolved) resolved_list.append(csr_tuple(std::move(rows)));
  out["phi"] = phi_list;
  out["by_length"] = resolved_list;
  out["f"] = to_numpy(std::vector<double>(result.run.f));
  out["alpha"] = to_numpy(std::vector<double>(result.run.alpha));
  out["first_row"] = first_row;  // the canonical index of this rank's first row
  return out;
}

using IndexArray = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>;
using LengthArray = py::array_t<std::int32_t, py::array::c_style | py::array::forcecast>;
using ValueArray = py::array_t<double, py::array::c_style | py::array::forcecast>;

// Phi = sum_t f_t M_t from length-resolved rows (combine_lengths: the same sums, in the same order, as the rows
// of /grf built with this f).
py::tuple combine(const IndexArray& indptr, const IndexArray& indices, const LengthArray& length, const ValueArray& data,
                  const std::vector<double>& f) {
  LengthResolvedGrf m;
  m.indptr.assign(indptr.data(), indptr.data() + indptr.size());
  m.col.assign(indices.data(), indices.data() + indices.size());
  m.length.assign(length.data(), length.data() + length.size());
  m.value.assign(data.data(), data.data() + data.size());
  if (m.indptr.empty() || m.col.size() != m.length.size() || m.col.size() != m.value.size() ||
      m.indptr.back() != static_cast<std::int64_t>(m.col.size()))
    throw InputError("combine_lengths: indptr, indices, length and data do not describe one CSR matrix");
  SparseRows phi = combine_lengths(m, f);
  return py::make_tuple(to_numpy(std::move(phi.indptr)), to_numpy(std::move(phi.col)), to_numpy(std::move(phi.value)));
}

}  // namespace

void bind_grf(py::module_& m) {
  m.def("grf", &grf, py::arg("graph"), py::arg("kernel"), py::arg("walk"), py::arg("estimator"), py::arg("by_length"),
        py::arg("memory_limit"));
  m.def("combine_lengths", &combine, py::arg("indptr"), py::arg("indices"), py::arg("length"), py::arg("data"), py::arg("f"));
}

}  // namespace graphrf::python
