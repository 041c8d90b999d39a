// Learning sigma: the assignment found is optimal for the estimated cost (brute force over all permutations),
// the cost is symmetric, and the whole computation gives the same bits at any rank count.
#include "graphrf/grf/sigma_learning.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "graphrf/walks/linear_assignment.hpp"
#include "mpi_test_support.hpp"

using namespace graphrf;
using graphrf::testing::world;

namespace {

SigmaLearningOptions options(SigmaTarget target) {
  SigmaLearningOptions o;
  o.target = target;
  o.kernel.kind = KernelKind::regularized_laplacian;
  o.kernel.beta = 1.0;
  o.kernel.power = 2;
  o.walk.p_halt = 0.5;
  o.walk.max_length = 40;
  o.walk.seed = 4;
  o.order = 5;
  o.samples = 32;
  o.start_every = 2;
  return o;
}

SigmaLearningResult learn_on(const Communicator& comm, SigmaTarget target) {
  GraphOptions graph;
  graph.graph = "random:40:4:8";
  graph.partition = "block";
  const auto g = load_graph(comm, graph);
  const Log log(comm, true);
  return learn_sigma(g, options(target), log);
}

}  // namespace

TEST(SigmaLearning, FindsTheCheapestPermutationOfASymmetricCostAtAnyRankCount) {
  for (SigmaTarget target : {SigmaTarget::kernel, SigmaTarget::pagerank}) {
    const SigmaLearningResult r = learn_on(world(), target);
    const int m = 5;
    EXPECT_EQ(r.start_nodes, 20);
    for (int q = 0; q < m; ++q)
      for (int s = 0; s < m; ++s)
        EXPECT_NEAR(r.cost[size_t(q * m + s)], r.cost[size_t(s * m + q)], 1e-12 * std::abs(r.cost[size_t(q * m + s)]));
    std::vector<int> p(m);
    std::iota(p.begin(), p.end(), 0);
    double best = 1e300;
    do best = std::min(best, assignment_cost(r.cost, p));
    while (std::next_permutation(p.begin(), p.end()));
    EXPECT_NEAR(r.cost_sigma, best, 1e-12 * best);
    EXPECT_LE(r.cost_sigma, r.cost_identity);
    EXPECT_LE(r.cost_sigma, r.cost_random_mean);
    EXPECT_GT(r.cost_identity, r.cost_sigma);  // matching equal quantiles is the worst kind of coupling here

    MPI_Comm solo_comm;
    MPI_Comm_split(MPI_COMM_WORLD, world().rank() == 0 ? 0 : MPI_UNDEFINED, 0, &solo_comm);
    int same = 1;
    if (world().rank() == 0) {
      const Communicator solo(solo_comm);
      const SigmaLearningResult one = learn_on(solo, target);
      same = one.cost == r.cost && one.sigma == r.sigma ? 1 : 0;
      MPI_Comm_free(&solo_comm);
    }
    world().broadcast(same);
    EXPECT_EQ(same, 1);
  }
}
