// Random-feature frequencies for Python: the library's draw_frequencies, so that graphrf.torch's FAVORPlus and DARK
// use the very frequencies `graphrf attention --feature favor|dark --draw D --seed S` draws (see
// random_projection.hpp: iid, orthogonal, orthogonal+pnc; antithetic on top).
#include <cstdint>
#include <string>

#include "bindings.hpp"
#include "graphrf/attention/feature_map.hpp"
#include "graphrf/attention/random_projection.hpp"
#include "graphrf/core/error.hpp"

namespace graphrf::python {

namespace {

py::array_t<double> draw(int m, int dim, const std::string& draw_name, bool antithetic, std::uint64_t seed) {
  const FrequencyDraw kind = parse_frequency_draw(draw_name);
  if (kind == FrequencyDraw::importance)
    throw InputError(std::string(kDrawOption) + ": importance needs Sigma* of the queries and keys (use iid, orthogonal "
                     "or orthogonal+pnc)");
  if (m < 1) throw InputError("random features: m must be >= 1 (got " + std::to_string(m) + ")");
  if (dim < 1) throw InputError("random features: the input dimension must be >= 1 (got " + std::to_string(dim) + ")");
  if (antithetic && m % 2 != 0)
    throw InputError(std::string(kAntitheticOption) + ": pairs every frequency w with -w, so m must be even (got " +
                     std::to_string(m) + ")");
  // Row-major m x dim for numpy.
  const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> w = draw_frequencies(m, dim, kind, antithetic, seed);
  py::array_t<double> out({static_cast<py::ssize_t>(m), static_cast<py::ssize_t>(dim)});
  std::copy(w.data(), w.data() + w.size(), out.mutable_data());
  return out;
}

}  // namespace

void bind_feature_draw(py::module_& m) {
  m.def("draw_frequencies", &draw, py::arg("m"), py::arg("dim"), py::arg("draw"), py::arg("antithetic"), py::arg("seed"),
        "An m x dim frequency matrix drawn as `graphrf attention --draw DRAW [--antithetic] --seed SEED` draws it.");
}

}  // namespace graphrf::python
