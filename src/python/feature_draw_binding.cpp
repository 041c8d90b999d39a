// Random features for Python: the library's draw_frequencies, so that graphrf.torch's FAVORPlus and DARK use the
// very frequencies `graphrf attention --feature favor|dark --draw D --feature-seed S` draws for head 0 (see
// random_projection.hpp: iid, orthogonal, orthogonal+pnc; antithetic on top), and the library's FeatureMap itself
// (feature_map), which the tests compare graphrf.torch's modules with.
#include <pybind11/stl.h>

#include <cstdint>
#include <optional>
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

using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ValueArray = py::array_t<double, py::array::c_style | py::array::forcecast>;

RowMajor matrix_of(const ValueArray& a, const char* name) {
  if (a.ndim() != 2) throw InputError(std::string("feature_map: ") + name + " must be two-dimensional");
  return Eigen::Map<const RowMajor>(a.data(), a.shape(0), a.shape(1));
}

// FeatureMap(options, d, M).apply(x, role) on one process: role "query", "key" (shifted by the largest key logit of
// x, as one rank's attention does) or "none" (apply_unshifted).
py::array_t<double> feature_map(const std::string& kind, const ValueArray& x, const std::string& role, int m,
                                const std::string& draw_name, bool antithetic, std::uint64_t seed,
                                double stabilizer_epsilon, double relu_epsilon, const std::optional<ValueArray>& dark_m) {
  FeatureOptions options;
  options.kind = parse_feature_kind(kind);
  options.m = m;
  options.draw = parse_frequency_draw(draw_name);
  options.antithetic = antithetic;
  options.seed = seed;
  options.stabilizer_epsilon = stabilizer_epsilon;
  options.relu_epsilon = relu_epsilon;
  const Eigen::MatrixXd input = matrix_of(x, "x");
  std::optional<Eigen::MatrixXd> M;
  if (dark_m) M = matrix_of(*dark_m, "M");
  const FeatureMap map(options, static_cast<int>(input.cols()), M ? &*M : nullptr);
  Eigen::MatrixXd phi;
  if (role == "query") phi = map.apply(input, FeatureRole::query);
  else if (role == "key") phi = map.apply(input, FeatureRole::key, map.key_max_logit(input));
  else if (role == "none") phi = map.apply_unshifted(input);
  else throw InputError("feature_map: role must be query, key or none (got " + role + ")");
  const RowMajor rows = phi;
  py::array_t<double> out({static_cast<py::ssize_t>(rows.rows()), static_cast<py::ssize_t>(rows.cols())});
  std::copy(rows.data(), rows.data() + rows.size(), out.mutable_data());
  return out;
}

}  // namespace

void bind_feature_draw(py::module_& m) {
  m.def("draw_frequencies", &draw, py::arg("m"), py::arg("dim"), py::arg("draw"), py::arg("antithetic"), py::arg("seed"),
        "An m x dim frequency matrix drawn as `graphrf attention --draw DRAW [--antithetic] --feature-seed SEED` draws it.");
  m.def("feature_map", &feature_map, py::arg("kind"), py::arg("x"), py::arg("role"), py::arg("m"), py::arg("draw"),
        py::arg("antithetic"), py::arg("seed"), py::arg("stabilizer_epsilon"), py::arg("relu_epsilon"), py::arg("M"),
        "The library's FeatureMap applied to the rows of x (n x d) on one process.");
}

}  // namespace graphrf::python
