#pragma once
// A sparse partial eigensolver that `graphrf bench-wavelet` times against random wavelet features: what a
// user would otherwise run to get a K-dimensional spectral embedding. The library ships none. The graphrf
// program registers SLEPc's Krylov-Schur when CMake finds SLEPc (an optional, benchmark-only dependency:
// src/cli/slepc_eigensolver.cpp is compiled into the program only, so the installed library never needs it).
#include <Eigen/Dense>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "graphrf/graph/distributed_graph.hpp"
#include "graphrf/mpi/communicator.hpp"

namespace graphrf {

struct PartialEigenpairs {
  Eigen::VectorXd values;         // the k smallest eigenvalues of the normalised Laplacian, ascending
  Eigen::MatrixXd vectors_local;  // this rank's rows of the matching orthonormal eigenvectors (n_local x k)
  int iterations = 0;             // solver restarts / outer iterations
};

struct EigensolverAnchor {
  std::string name;  // printed in RESULT lines, e.g. "slepc"
  // Starts the solver library on `comm` for the lifetime of the returned handle (collective).
  std::function<std::shared_ptr<void>(const Communicator& comm)> start;
  // The k smallest eigenpairs of L = I - D^-1/2 A D^-1/2 of g, to relative residual tol (collective).
  std::function<PartialEigenpairs(const DistributedGraph& g, std::int64_t k, double tol)> smallest_eigenpairs;
};

// The registered anchor, or nullptr when the program was built without one.
const EigensolverAnchor* eigensolver_anchor();
void register_eigensolver_anchor(EigensolverAnchor anchor);

// SLEPc's Krylov-Schur (defined only in programs built with SLEPc, GRAPHRF_HAVE_SLEPC).
EigensolverAnchor slepc_krylov_schur_anchor();

}  // namespace graphrf
