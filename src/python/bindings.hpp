#pragma once
// What the binding files of the Python module graphrf._graphrf share: the communicator every call runs on, the
// graph handle Python holds, and numpy arrays that take over a C++ vector without copying it.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <memory>
#include <vector>

#include "graphrf/graph/distributed_graph.hpp"

namespace graphrf::python {

namespace py = pybind11;

// The communicator of a call without mpi4py: MPI_COMM_SELF, one rank (MPI is initialised once on import).
const Communicator& single_process();

// A loaded graph as Python holds it (immutable; shared by the results that refer to it).
struct GraphHandle {
  std::shared_ptr<const DistributedGraph> graph;
};

// A numpy array owning `values` (moved, not copied).
template <class T>
py::array_t<T> to_numpy(std::vector<T>&& values) {
  auto* owned = new std::vector<T>(std::move(values));
  py::capsule free_when_done(owned, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>(static_cast<py::ssize_t>(owned->size()), owned->data(), free_when_done);
}

void bind_graph(py::module_& m);
void bind_grf(py::module_& m);
void bind_pagerank(py::module_& m);
void bind_masked_attention(py::module_& m);

}  // namespace graphrf::python
