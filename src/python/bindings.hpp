#pragma once
// What the binding files of the Python module graphrf._graphrf share: the communicator every call runs on, the
// graph handle Python holds, numpy arrays that take over a C++ vector without copying it, and the kernel options.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "graphrf/graph/distributed_graph.hpp"
#include "graphrf/grf/kernel.hpp"
#include "graphrf/mpi/log.hpp"
#include "graphrf/walks/walk_options.hpp"

namespace graphrf::python {

namespace py = pybind11;

// The communicator of a call without mpi4py: MPI_COMM_SELF, one rank (MPI is initialised once on import).
const Communicator& single_process();

// The communicator of an mpi4py Comm, given its handle's address (MPI._addressof(comm)); 0: single_process().
// Borrowed, not duplicated: the mpi4py Comm must outlive the graphs built on it (MPI.COMM_WORLD does).
std::shared_ptr<const Communicator> communicator_at(std::uintptr_t address);

// A loaded graph as Python holds it (immutable; shared by the results that refer to it), with the communicator
// its rows are distributed over (declared first: it outlives the graph that points to it).
struct GraphHandle {
  std::shared_ptr<const Communicator> comm;
  std::shared_ptr<const DistributedGraph> graph;
};

// The library's warnings during one call. The call runs without the GIL, so its Log (quiet, warnings sent here
// instead of stderr) collects rank 0's lines, and issue() raises each as a Python warning of category
// graphrf.GraphrfWarning (with the CLI's flags for field names) once the call is back holding the GIL.
class CallWarnings {
 public:
  Log log(const Communicator& comm) {
    Log log(comm, /*quiet=*/true);
    log.send_warnings_to([this](const std::string& line) { lines_.push_back(line); });
    return log;
  }
  void issue() const;

 private:
  std::vector<std::string> lines_;
};

// A numpy array owning `values` (moved, not copied).
template <class T>
py::array_t<T> to_numpy(std::vector<T>&& values) {
  auto* owned = new std::vector<T>(std::move(values));
  py::capsule free_when_done(owned, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>(static_cast<py::ssize_t>(owned->size()), owned->data(), free_when_done);
}

// The kernel options of the CLI (kernel_spec_from), as the Python calls pass them: {"kernel", "beta", "power",
// "shift", "alpha" (None or a list), "f" (None or a list)}. `weights`: the walk matrix they are for.
KernelSpec kernel_spec(const py::dict& options, WeightMode weights);
// The walk options of the CLI (walk_options_from): {"walkers", "p_halt", "max_length", "p_halt_default",
// "max_length_default", "fixed_length" (None or T), "seed", "coupling", "sigma" (None, a permutation file, or its
// 1-based values), "step", "weights", "scale"}.
WalkOptions walk_options(const py::dict& options);

void bind_graph(py::module_& m);
void bind_grf(py::module_& m);
void bind_pagerank(py::module_& m);
void bind_wavelet(py::module_& m);
void bind_gp(py::module_& m);
void bind_masked_attention(py::module_& m);
void bind_feature_draw(py::module_& m);

}  // namespace graphrf::python
