// A C++ user's path through the installed graphrf: load a graph, build its graph random features, fit a
// Gaussian process to node observations and predict every node. Run: mpirun -n 2 example GRAPH OBSERVATIONS
// (OBSERVATIONS: CSV `node,y` with a header; a quarter of them are held out to test the predictions).
#include <iomanip>
#include <iostream>

#include "graphrf/gp/gp_learning.hpp"
#include "graphrf/gp/gp_observations.hpp"
#include "graphrf/gp/gp_prediction.hpp"
#include "graphrf/grf/grf_pipeline.hpp"
#include "graphrf/mpi/main_guard.hpp"
#include "graphrf/mpi/mpi_environment.hpp"

using namespace graphrf;

int main(int argc, char** argv) {
  MpiEnvironment env(argc, argv);
  const Communicator world(MPI_COMM_WORLD);
  if (argc != 3) {
    std::cerr << "usage: example GRAPH OBSERVATIONS\n";
    return 2;
  }
  return run_guarded("example", world, [&] {
    const Log log(world, /*quiet=*/true);
    const DistributedGraph g = load_graph(world, GraphOptions{.graph = argv[1]});  // read and partitioned
    const KernelSpec kernel;  // diffusion exp(-beta L), beta = 1 (the starting value)
    const GrfRun grf = compute_grf(g, kernel, WalkOptions{}, GrfEstimator::symmetric, log);  // 16 walkers a node
    const LocalObservations obs = distribute_observations(g, argv[2], SplitSpec{.test_fraction = 0.25});

    GpData data{.y = Eigen::VectorXd::Zero(g.n_local()), .train = Eigen::VectorXd::Zero(g.n_local()), .n_train = obs.n_train};
    Eigen::VectorXd test = Eigen::VectorXd::Zero(g.n_local());
    for (std::int64_t i = 0; i < g.n_local(); ++i) {
      const auto role = static_cast<NodeRole>(obs.role[static_cast<size_t>(i)]);
      if (role == NodeRole::train) data.train(i) = 1, data.y(i) = obs.y(i);
      if (role == NodeRole::test) test(i) = 1;
    }
    GrfFeatureOperator phi(g, grf.by_length[0]);
    phi.restrict_rows(data.train);
    attach_training_space(g, data);

    // Learn sigma_f, beta and sigma_n (Adam on the log marginal likelihood), then predict every node.
    const GpParameters parameters(kernel, GpLearn::hyper, phi.n_lengths(), /*sigma_f=*/1.0, /*sigma_n=*/0.1);
    LearningTrace trace;
    const std::vector<double> p = learn_gp(phi, data, parameters, LmlOptions{}, AdamSchedule{.iterations = 20}, log, trace);
    const GpPrediction prediction = predict_gp(phi, data, parameters.sigma_n(p), test, GpPredictionOptions{});
    const RowBlockReducer reducer(world, g.n_global(), g.canonical_index);
    const GpMetrics m = gp_metrics(reducer, prediction.mean, prediction.variance, parameters.sigma_n(p), obs.y, test);

    const std::int64_t rows = world.sum(grf.phi[0].n_local());
    const std::int64_t finite = world.sum(static_cast<std::int64_t>(prediction.mean.array().isFinite().count()));
    if (world.is_root())
      std::cout << "nodes " << g.n_global() << " grf_rows " << rows << " train " << obs.n_train << " test " << m.n_test
                << " finite_predictions " << finite << " rmse " << std::fixed << std::setprecision(4) << m.rmse << "\n";
    return 0;
  });
}
