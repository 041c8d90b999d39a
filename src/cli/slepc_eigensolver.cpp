// SLEPc Krylov-Schur as the partial-eigensolver anchor of `graphrf bench-wavelet`. Compiled into the graphrf
// program only, and only when CMake finds SLEPc (see eigensolver_anchor.hpp).
#include <petscmat.h>
#include <slepceps.h>

#include <string>

#include "graphrf/cli/eigensolver_anchor.hpp"
#include "graphrf/core/error.hpp"

namespace graphrf {

namespace {
void check(PetscErrorCode code, const char* what) {
  if (code != 0) throw Error(std::string("SLEPc: ") + what + " failed (PETSc error " + std::to_string(int(code)) + ")");
}

// RAII for the handles.
struct MatHandle {
  Mat m = nullptr;
  ~MatHandle() { if (m) MatDestroy(&m); }
};
struct VecHandle {
  Vec v = nullptr;
  ~VecHandle() { if (v) VecDestroy(&v); }
};
struct EpsHandle {
  EPS e = nullptr;
  ~EpsHandle() { if (e) EPSDestroy(&e); }
};

struct SlepcSession {
  explicit SlepcSession(const Communicator& comm) {
    PETSC_COMM_WORLD = comm.get();
    check(SlepcInitializeNoArguments(), "SlepcInitialize");
  }
  ~SlepcSession() { SlepcFinalize(); }
};

PartialEigenpairs solve(const DistributedGraph& g, std::int64_t k, double tol) {
  const auto n_local = static_cast<PetscInt>(g.n_local());
  const auto first = static_cast<PetscInt>(g.first());
  // L = I - W with rows in graphrf's order (contiguous per rank, as PETSc wants).
  std::vector<PetscInt> diag_nz(static_cast<size_t>(n_local), 1), off_nz(static_cast<size_t>(n_local), 0);
  for (PetscInt i = 0; i < n_local; ++i)
    for (auto e = g.row_ptr[size_t(i)]; e < g.row_ptr[size_t(i) + 1]; ++e) ++(g.owns(g.col[size_t(e)]) ? diag_nz : off_nz)[size_t(i)];
  MatHandle a;
  check(MatCreate(PETSC_COMM_WORLD, &a.m), "MatCreate");
  check(MatSetSizes(a.m, n_local, n_local, PETSC_DETERMINE, PETSC_DETERMINE), "MatSetSizes");
  check(MatSetType(a.m, MATAIJ), "MatSetType");
  check(MatMPIAIJSetPreallocation(a.m, 0, diag_nz.data(), 0, off_nz.data()), "MatMPIAIJSetPreallocation");
  check(MatSeqAIJSetPreallocation(a.m, 0, diag_nz.data()), "MatSeqAIJSetPreallocation");
  std::vector<PetscInt> cols;
  std::vector<PetscScalar> vals;
  for (PetscInt i = 0; i < n_local; ++i) {
    cols.assign(1, first + i);
    vals.assign(1, 1.0);
    for (auto e = g.row_ptr[size_t(i)]; e < g.row_ptr[size_t(i) + 1]; ++e) {
      cols.push_back(static_cast<PetscInt>(g.col[size_t(e)]));
      vals.push_back(-g.normalized_weight[size_t(e)]);
    }
    const PetscInt row = first + i;
    check(MatSetValues(a.m, 1, &row, PetscInt(cols.size()), cols.data(), vals.data(), INSERT_VALUES), "MatSetValues");
  }
  check(MatAssemblyBegin(a.m, MAT_FINAL_ASSEMBLY), "MatAssemblyBegin");
  check(MatAssemblyEnd(a.m, MAT_FINAL_ASSEMBLY), "MatAssemblyEnd");

  EpsHandle eps;
  check(EPSCreate(PETSC_COMM_WORLD, &eps.e), "EPSCreate");
  check(EPSSetOperators(eps.e, a.m, nullptr), "EPSSetOperators");
  check(EPSSetProblemType(eps.e, EPS_HEP), "EPSSetProblemType");
  check(EPSSetType(eps.e, EPSKRYLOVSCHUR), "EPSSetType");
  check(EPSSetWhichEigenpairs(eps.e, EPS_SMALLEST_REAL), "EPSSetWhichEigenpairs");
  check(EPSSetDimensions(eps.e, static_cast<PetscInt>(k), PETSC_DEFAULT, PETSC_DEFAULT), "EPSSetDimensions");
  check(EPSSetTolerances(eps.e, tol, 100000), "EPSSetTolerances");
  // Residual relative to ||L|| (<= 2): the default, relative to |lambda|, is undefined at lambda_1 = 0.
  check(EPSSetConvergenceTest(eps.e, EPS_CONV_NORM), "EPSSetConvergenceTest");
  check(EPSSolve(eps.e), "EPSSolve");
  PetscInt converged = 0, iterations = 0;
  check(EPSGetConverged(eps.e, &converged), "EPSGetConverged");
  check(EPSGetIterationNumber(eps.e, &iterations), "EPSGetIterationNumber");
  if (converged < k)
    throw Error("SLEPc: only " + std::to_string(converged) + " of " + std::to_string(k) + " eigenpairs converged");
  PartialEigenpairs out;
  out.values.resize(k);
  out.vectors_local.resize(n_local, k);
  out.iterations = static_cast<int>(iterations);
  VecHandle x;
  check(MatCreateVecs(a.m, &x.v, nullptr), "MatCreateVecs");
  for (PetscInt j = 0; j < k; ++j) {
    PetscScalar value;
    check(EPSGetEigenpair(eps.e, j, &value, nullptr, x.v, nullptr), "EPSGetEigenpair");
    out.values(j) = value;
    const PetscScalar* data;
    check(VecGetArrayRead(x.v, &data), "VecGetArrayRead");
    for (PetscInt i = 0; i < n_local; ++i) out.vectors_local(i, j) = data[i];
    check(VecRestoreArrayRead(x.v, &data), "VecRestoreArrayRead");
  }
  return out;
}
}  // namespace

EigensolverAnchor slepc_krylov_schur_anchor() {
  EigensolverAnchor anchor;
  anchor.name = "slepc";
  anchor.start = [](const Communicator& comm) -> std::shared_ptr<void> { return std::make_shared<SlepcSession>(comm); };
  anchor.smallest_eigenpairs = solve;
  return anchor;
}

}  // namespace graphrf
