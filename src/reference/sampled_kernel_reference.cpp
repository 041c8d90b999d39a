#include "graphrf/reference/sampled_kernel_reference.hpp"

#include "graphrf/graph/laplacian_operator.hpp"
#include "graphrf/mpi/phase_progress.hpp"
#include "graphrf/mpi/reproducible_sum.hpp"
#include "graphrf/reference/laplacian_function_columns.hpp"
#include "graphrf/reference/node_sample.hpp"

namespace graphrf {

SampledKernelColumns sampled_kernel_columns(const DistributedGraph& g, const KernelSpec& kernel, const WalkOptions& walk,
                                            std::int64_t samples, std::uint64_t seed) {
  collective_try(*g.comm, [&] {
    if (walk.weights == WeightMode::raw)
      throw InputError("--reference: above the dense limit the sampled reference needs --weights normalized or combinatorial");
  });
  SampledKernelColumns out;
  out.sample = locate_sample(g, sample_node_indices(g.n_global(), samples, seed));
  const bool combinatorial = walk.weights == WeightMode::combinatorial;
  // The Laplacian itself, not the walk matrix: the normalised one (spectrum in [0, 2]), or L = D - A (spectrum in
  // [0, 2 d_max]), whose eigenvalue lambda is d_max times the eigenvalue lambda / d_max of I - W that the kernel's
  // closed form takes (kernel_of_laplacian_eigenvalue evaluates h(d_max * lambda / d_max) = h(lambda)).
  const DistributedOperator laplacian = combinatorial ? combinatorial_laplacian_operator(g) : normalized_laplacian_operator(g);
  const double scale = combinatorial ? kernel.laplacian_scale : 1.0;
  auto columns = laplacian_function_columns(
      laplacian, 2.0 * scale, [&](double lambda) { return kernel_of_laplacian_eigenvalue(kernel, lambda / scale); },
      one_hot_columns(g, out.sample));
  out.exact = std::move(columns.local);
  out.degree = columns.degree;
  out.truncation_bound = columns.truncation_bound;
  return out;
}

Eigen::MatrixXd sampled_estimate_columns(const DistributedGraph& g, const GrfRun& run, const NodeSample& sample) {
  const Communicator& comm = *g.comm;
  Eigen::MatrixXd est(g.n_local(), sample.size());
  const SparseRows& phi = run.phi[0];
  if (run.estimator == GrfEstimator::asymmetric) {
    // The estimate is Phi itself; its column i is row i of Phi's transpose: entry (j, i) = Phi_j[i].
    std::vector<std::int64_t> global_of_sample(static_cast<size_t>(sample.size()), -1);
    for (std::int64_t c = 0; c < sample.size(); ++c)
      if (sample.local_row[static_cast<size_t>(c)] >= 0) global_of_sample[static_cast<size_t>(c)] = g.first() + sample.local_row[static_cast<size_t>(c)];
    global_of_sample = comm.allreduce(std::move(global_of_sample), MPI_MAX);
    for (std::int64_t j = 0; j < g.n_local(); ++j)
      for (std::int64_t c = 0; c < sample.size(); ++c) est(j, c) = sparse_entry(phi, j, global_of_sample[static_cast<size_t>(c)]);
    return est;
  }
  const SparseRows phi_s = replicate_sampled_rows(comm, sample, phi);
  // N x samples sparse dot products: seconds on large graphs.
  PhaseProgress progress("reference   estimated rows of " + std::to_string(sample.size()) + " sampled nodes", g.n_local());
  if (run.estimator == GrfEstimator::symmetric) {
    for (std::int64_t j = 0; j < g.n_local(); ++j) {
      progress.update(j);
      for (std::int64_t c = 0; c < sample.size(); ++c) est(j, c) = sparse_dot(phi, j, phi_s, c);
    }
    return est;
  }
  const SparseRows& phi2 = run.phi[1];
  const SparseRows phi2_s = replicate_sampled_rows(comm, sample, phi2);
  for (std::int64_t j = 0; j < g.n_local(); ++j) {
    progress.update(j);
    for (std::int64_t c = 0; c < sample.size(); ++c)
      est(j, c) = 0.5 * (sparse_dot(phi, j, phi2_s, c) + sparse_dot(phi2, j, phi_s, c));
  }
  return est;
}

SampledError sampled_column_error(const DistributedGraph& g, const Eigen::MatrixXd& estimate_local,
                                  const Eigen::MatrixXd& exact_local) {
  const RowBlockReducer reducer(*g.comm, g.n_global(), g.canonical_index);
  const Eigen::MatrixXd ones = Eigen::MatrixXd::Ones(g.n_local(), 1);
  const Eigen::MatrixXd error_sq = reducer.cross((estimate_local - exact_local).cwiseAbs2(), ones);
  const Eigen::MatrixXd exact_sq = reducer.cross(exact_local.cwiseAbs2(), ones);
  return sampled_relative_error(std::span<const double>(error_sq.data(), static_cast<size_t>(error_sq.size())),
                                std::span<const double>(exact_sq.data(), static_cast<size_t>(exact_sq.size())), g.n_global());
}

}  // namespace graphrf
