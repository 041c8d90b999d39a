// The C++ side of graphrf.torch.MaskedLinearAttention: the mask pattern built once from the walks, and the
// forward and backward passes on float32 or float64 arrays (torch CPU tensors cross as numpy views, no copies).
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "graphrf/core/error.hpp"
#include "masked_attention_kernel.hpp"

namespace graphrf::python {

namespace {

template <class T>
using Array = py::array_t<T, py::array::c_style>;

template <class T>
std::span<const T> flat(const Array<T>& a) {
  return {a.data(), static_cast<std::size_t>(a.size())};
}

// An N x width matrix; width -1: any.
template <class T>
std::int64_t check_matrix(const Array<T>& a, const char* name, std::int64_t n, std::int64_t width = -1) {
  if (a.ndim() != 2 || a.shape(0) != n || (width >= 0 && a.shape(1) != width))
    throw InputError(std::string("masked attention: ") + name + " must be " + std::to_string(n) + " x " +
                     (width >= 0 ? std::to_string(width) : std::string("k")) + " (one row per node of the walks' graph)");
  return a.shape(1);
}

template <class T>
void check_values(const MaskPattern& pattern, const Array<T>& values, const char* side) {
  if (values.ndim() != 1 || values.shape(0) != pattern.nnz())
    throw InputError(std::string("masked attention: ") + side + " mask values must be one per pattern entry");
}

template <class T>
py::array_t<T> matrix(std::int64_t rows, std::int64_t cols) {
  return py::array_t<T>({static_cast<py::ssize_t>(rows), static_cast<py::ssize_t>(cols)});
}

template <class T>
py::tuple forward(const MaskPattern& qp, const Array<T>& qv, const MaskPattern& kp, const Array<T>& kv, const Array<T>& A,
                  const Array<T>& B, const Array<T>& V) {
  const std::int64_t n = qp.n();
  if (kp.n() != n) throw InputError("masked attention: the query and key walks are on graphs of different sizes");
  check_values(qp, qv, "query");
  check_values(kp, kv, "key");
  const std::int64_t m = check_matrix(A, "phi_q", n);
  check_matrix(B, "phi_k", n, m);
  const std::int64_t d = check_matrix(V, "v", n);
  py::array_t<T> out = matrix<T>(n, d);
  auto state = std::make_unique<AttentionState<T>>();
  {
    py::gil_scoped_release unlocked;
    *state = masked_attention_forward<T>({qp, flat(qv)}, {kp, flat(kv)}, A.data(), B.data(), V.data(), m, d, out.mutable_data());
  }
  return py::make_tuple(out, py::cast(std::move(state)));
}

template <class T>
py::tuple backward(const MaskPattern& qp, const Array<T>& qv, const MaskPattern& kp, const Array<T>& kv, const Array<T>& A,
                   const Array<T>& B, const Array<T>& V, const Array<T>& out, const AttentionState<T>& state,
                   const Array<T>& G) {
  const std::int64_t n = qp.n();
  const std::int64_t m = check_matrix(A, "phi_q", n);
  check_matrix(B, "phi_k", n, m);
  const std::int64_t d = check_matrix(V, "v", n);
  check_matrix(out, "out", n, d);
  check_matrix(G, "the output gradient", n, d);
  check_values(qp, qv, "query");
  check_values(kp, kv, "key");
  if (state.den.size() != static_cast<std::size_t>(n) || state.S.size() != static_cast<std::size_t>(n * m * d))
    throw InputError("masked attention: the saved forward state does not match these inputs");
  py::array_t<T> dA = matrix<T>(n, m), dB = matrix<T>(n, m), dV = matrix<T>(n, d);
  py::array_t<T> dq(static_cast<py::ssize_t>(qp.nnz())), dk(static_cast<py::ssize_t>(kp.nnz()));
  {
    py::gil_scoped_release unlocked;
    masked_attention_backward<T>({qp, flat(qv)}, {kp, flat(kv)}, A.data(), B.data(), V.data(), m, d, out.data(), state,
                                 G.data(), dA.mutable_data(), dB.mutable_data(), dV.mutable_data(), dq.mutable_data(),
                                 dk.mutable_data());
  }
  return py::make_tuple(dA, dB, dV, dq, dk);
}

template <class T>
void bind_precision(py::module_& m, const char* state_name) {
  py::class_<AttentionState<T>>(m, state_name);
  m.def("masked_attention_forward", &forward<T>, py::arg("query_pattern"), py::arg("query_values"), py::arg("key_pattern"),
        py::arg("key_values"), py::arg("phi_q"), py::arg("phi_k"), py::arg("v"));
  m.def("masked_attention_backward", &backward<T>, py::arg("query_pattern"), py::arg("query_values"),
        py::arg("key_pattern"), py::arg("key_values"), py::arg("phi_q"), py::arg("phi_k"), py::arg("v"), py::arg("out"),
        py::arg("state"), py::arg("grad_out"));
}

}  // namespace

void bind_masked_attention(py::module_& m) {
  using IndexArray = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>;
  using LengthArray = py::array_t<std::int32_t, py::array::c_style | py::array::forcecast>;
  using ValueArray = py::array_t<double, py::array::c_style | py::array::forcecast>;
  auto vec = []<class T>(const py::array_t<T, py::array::c_style | py::array::forcecast>& a) {
    return std::vector<T>(a.data(), a.data() + a.size());
  };
  py::class_<MaskPattern>(m, "MaskPattern")
      .def(py::init([vec](std::int64_t n, const IndexArray& indptr, const IndexArray& indices, const LengthArray& length,
                          const ValueArray& data) {
             return MaskPattern(n, vec(indptr), vec(indices), vec(length), vec(data));
           }),
           py::arg("n"), py::arg("indptr"), py::arg("indices"), py::arg("length"), py::arg("data"))
      .def_property_readonly("n", &MaskPattern::n)
      .def_property_readonly("nnz", &MaskPattern::nnz)
      .def_property_readonly("n_lengths", &MaskPattern::n_lengths)
      .def("indptr", [](const MaskPattern& p) { return to_numpy(std::vector<std::int64_t>(p.indptr())); })
      .def("indices", [](const MaskPattern& p) { return to_numpy(std::vector<std::int64_t>(p.indices())); })
      .def("values", [](const MaskPattern& p, const Array<double>& f) { return to_numpy(p.values<double>(flat(f))); })
      .def("values", [](const MaskPattern& p, const Array<float>& f) { return to_numpy(p.values<float>(flat(f))); })
      .def("f_gradient", [](const MaskPattern& p, const Array<double>& dphi, std::size_t f_size) {
        return to_numpy(p.f_gradient<double>(flat(dphi), f_size));
      })
      .def("f_gradient", [](const MaskPattern& p, const Array<float>& dphi, std::size_t f_size) {
        return to_numpy(p.f_gradient<float>(flat(dphi), f_size));
      });
  bind_precision<double>(m, "AttentionState64");
  bind_precision<float>(m, "AttentionState32");
}

}  // namespace graphrf::python
