#pragma once
// RAII MPI_Init/MPI_Finalize. Errors on MPI_COMM_WORLD return codes instead of aborting, so the
// communication layer can turn them into MpiError exceptions with MPI's own message.
#include <mpi.h>

namespace graphrf {

class MpiEnvironment {
 public:
  MpiEnvironment(int& argc, char**& argv);
  ~MpiEnvironment();
  MpiEnvironment(const MpiEnvironment&) = delete;
  MpiEnvironment& operator=(const MpiEnvironment&) = delete;

  // Ends every rank of the job (used when one rank failed alone and the others may be blocked).
  [[noreturn]] static void abort(int code);
};

}  // namespace graphrf
