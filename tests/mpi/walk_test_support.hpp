#pragma once
// Graphs on hosts, walk options, GRF rows keyed by original ids and the checks of rows against a run's, for the
// tests of walks on hosts (host_walks_test, replicated_walks_test).
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "graphrf/graph/distributed_graph.hpp"
#include "graphrf/grf/grf_pipeline.hpp"
#include "graphrf/grf/grf_row_assembler.hpp"
#include "graphrf/walks/walk_engine.hpp"
#include "mpi_test_support.hpp"

namespace graphrf::testing {

inline DistributedGraph load_on_hosts(const std::string& graph, const std::string& partition, int host_size,
                                      bool replicate = false) {
  GraphOptions o;
  o.graph = graph;
  o.partition = partition;
  o.host_size = host_size;
  o.replicate_graph = replicate;
  return load_graph(world(), o);
}

// Every rank's values gathered on every rank, in rank order (tiny graphs only).
template <class T>
std::vector<T> gather_all(const std::vector<T>& mine) {
  const Communicator& comm = world();
  std::vector<T> send;
  for (int r = 0; r < comm.size(); ++r) send.insert(send.end(), mine.begin(), mine.end());
  return comm.alltoallv(send, Counts(size_t(comm.size()), std::int64_t(mine.size())));
}

// Every rank's rows gathered on every rank, keyed by (row, column) original ids: the same whatever the partition.
inline std::map<std::pair<std::int64_t, std::int64_t>, double> rows_by_id(const DistributedGraph& g, const SparseRows& phi) {
  const std::vector<std::int64_t> id_of = gather_all(g.original_id);  // by global index
  std::vector<std::int64_t> rows, cols;
  std::vector<double> values;
  for (std::int64_t i = 0; i < phi.n_local(); ++i)
    for (auto k = phi.indptr[size_t(i)]; k < phi.indptr[size_t(i) + 1]; ++k) {
      rows.push_back(g.original_id[size_t(i)]);
      cols.push_back(id_of[size_t(phi.col[size_t(k)])]);
      values.push_back(phi.value[size_t(k)]);
    }
  const auto all_rows = gather_all(rows), all_cols = gather_all(cols);
  const auto all_values = gather_all(values);
  std::map<std::pair<std::int64_t, std::int64_t>, double> by_id;
  for (size_t k = 0; k < all_rows.size(); ++k) by_id[{all_rows[k], all_cols[k]}] = all_values[k];
  return by_id;
}

inline WalkOptions walk_options(Coupling coupling, StepRule step = StepRule::uniform) {
  WalkOptions o;
  o.walkers = 4;
  o.p_halt = 0.15;
  o.max_length = 40;
  o.seed = 9;
  o.coupling = coupling;
  o.step = step;
  return o;
}

// Rows assembled from a run of the walk engine (Phi and M_t) and its walk statistics, bitwise those of `expected`.
inline void expect_rows_and_walks_of(const AssembledGrf& rows, const WalkResult& walks, const GrfRun& expected) {
  EXPECT_EQ(rows.phi.indptr, expected.phi[0].indptr);
  EXPECT_EQ(rows.phi.col, expected.phi[0].col);
  EXPECT_EQ(rows.phi.value, expected.phi[0].value);
  EXPECT_EQ(rows.by_length.indptr, expected.by_length[0].indptr);
  EXPECT_EQ(rows.by_length.col, expected.by_length[0].col);
  EXPECT_EQ(rows.by_length.length, expected.by_length[0].length);
  EXPECT_EQ(rows.by_length.value, expected.by_length[0].value);
  EXPECT_EQ(walks.stats.hops, expected.walks[0].hops);
  EXPECT_EQ(walks.stats.length_histogram, expected.walks[0].length_histogram);
}

inline KernelSpec diffusion() {
  KernelSpec k;
  k.kind = KernelKind::diffusion;
  k.beta = 0.8;
  return k;
}

}  // namespace graphrf::testing
