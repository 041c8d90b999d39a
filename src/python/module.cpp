// graphrf._graphrf: the library's calls for Python (the package graphrf wraps them in Graph, grf, walk and the
// PyTorch modules). MPI is initialised on import when nobody did (mpi4py may have), and finalised at exit only
// then. Library errors become Python exceptions carrying the CLI's one-line message: a file that cannot be opened
// or read (FileError) OSError, any other input error ValueError, MPI and HDF5 failures RuntimeError. Nothing aborts
// the interpreter. Library warnings become Python warnings of category GraphrfWarning (a UserWarning).
#include <mpi.h>

#include <string>

#include "bindings.hpp"
#include "graphrf/cli/option_fields.hpp"
#include "graphrf/core/error.hpp"

namespace graphrf::python {

namespace {

bool initialised_here = false;

void initialise_mpi() {
  int initialised = 0;
  check_mpi(MPI_Initialized(&initialised), "MPI_Initialized");
  if (!initialised) {
    int provided = 0;
    check_mpi(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
    initialised_here = true;
  }
  // Errors come back as codes (then MpiError, then RuntimeError) instead of MPI's default abort.
  check_mpi(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
}

void finalise_mpi() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (initialised_here && !finalized) MPI_Finalize();
}

PyObject* warning_category = nullptr;  // graphrf.GraphrfWarning, created on import

}  // namespace

void CallWarnings::issue() const {
  // stacklevel 2: the warning names the line of the user's code that called the package.
  for (const std::string& line : lines_)
    if (PyErr_WarnEx(warning_category, with_option_flags(line).c_str(), 2) < 0) throw py::error_already_set();
}

const Communicator& single_process() {
  static const Communicator self(MPI_COMM_SELF);
  return self;
}

std::shared_ptr<const Communicator> communicator_at(std::uintptr_t address) {
  if (address == 0) return {std::shared_ptr<const Communicator>{}, &single_process()};  // not owned
  return std::make_shared<const Communicator>(*reinterpret_cast<const MPI_Comm*>(address));
}

}  // namespace graphrf::python

PYBIND11_MODULE(_graphrf, m) {
  namespace py = pybind11;
  using namespace graphrf;
  m.doc() = "graphrf: graph random features, the library's calls (use the package graphrf)";
  python::initialise_mpi();
  py::module_::import("atexit").attr("register")(py::cpp_function(&python::finalise_mpi));
  python::warning_category = PyErr_NewException("graphrf.GraphrfWarning", PyExc_UserWarning, nullptr);
  m.attr("GraphrfWarning") = py::handle(python::warning_category);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InputError& e) {
      const std::string message = with_option_flags(e.what());
      PyErr_SetString(e.kind() == InputError::Kind::file ? PyExc_OSError : PyExc_ValueError, message.c_str());
    } catch (const Error& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  });
  python::bind_graph(m);
  python::bind_grf(m);
  python::bind_pagerank(m);
  python::bind_wavelet(m);
  python::bind_gp(m);
  python::bind_masked_attention(m);
  python::bind_feature_draw(m);
}
