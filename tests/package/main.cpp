// Downstream use of the installed graphrf: public headers from every dependency (MPI, parallel HDF5,
// Eigen, Random123) compile, and library symbols that need METIS, PT-Scotch and
// HDF5 link. Prints one line the package test checks. No MPI call is made, so it runs without mpirun.
#include <iostream>

#include "graphrf/mpi/block_distribution.hpp"
#include "graphrf/core/counter_rng.hpp"
#include "graphrf/grf/dense_reference.hpp"
#include "graphrf/io/graph_formats.hpp"
#include "graphrf/io/h5_output.hpp"
#include "graphrf/partition/partitioner.hpp"
#include "graphrf/version.hpp"

int main() {
  const auto dist = graphrf::BlockDistribution::uniform(10, 3);
  const char* format = graphrf::format_name(graphrf::parse_format_name("mm"));
  // Taking the addresses pulls the objects that call METIS, PT-Scotch and HDF5 into the link.
  const bool linked = &graphrf::partition_metis != nullptr && &graphrf::partition_ptscotch != nullptr &&
                      &graphrf::check_output_writable != nullptr;
  std::cout << "graphrf " << graphrf::kVersion << " blocks";
  for (int r = 0; r < dist.ranks(); ++r) std::cout << ' ' << dist.count(r);
  std::cout << " format " << format << " owner(7) " << dist.owner(7) << (linked ? " linked" : " unlinked") << "\n";
  return 0;
}
