#include "graphrf/mpi/host_topology.hpp"

#include <algorithm>

namespace graphrf {

namespace {

// Whether a shared window can be allocated on `host`, agreed by every rank of `comm`. Containers often limit
// /dev/shm (Docker: 64 MB); this only tries a few bytes, the real allocations say what failed.
std::string shared_window_problem(const Communicator& comm, const Communicator& host) {
  MPI_Win win = MPI_WIN_NULL;
  void* base = nullptr;
  const int code = MPI_Win_allocate_shared(8, 1, MPI_INFO_NULL, host.get(), &base, &win);
  if (code == MPI_SUCCESS) MPI_Win_free(&win);
  const int failed = comm.max(code == MPI_SUCCESS ? 0 : 1);
  if (!failed) return {};
  return code == MPI_SUCCESS ? "another rank could not allocate a shared-memory window"
                             : "MPI_Win_allocate_shared failed: " + mpi_error_text(code);
}

}  // namespace

HostTopology::HostTopology() : host_(MPI_COMM_SELF) {}

HostTopology::HostTopology(const Communicator& comm, int host_size) : rank_(comm.rank()) {
  if (host_size < 0) throw Error("HostTopology: host size must be >= 0");
  int leader = comm.rank();
  if (host_size != 1 && comm.size() > 1) {
    // Within a machine, host rank i belongs to the host led by machine rank (i / K) * K.
    const Communicator machine = comm.split_shared();
    const int k = host_size == 0 ? machine.size() : std::min(host_size, machine.size());
    const std::vector<int> members = machine.allgather(comm.rank());
    leader = members[static_cast<size_t>(machine.rank() / k * k)];
  }
  std::vector<int> leaders = comm.allgather(leader);
  bool consecutive = true;
  for (int r = 0; r < comm.size(); ++r)
    consecutive = consecutive && (leaders[static_cast<size_t>(r)] == r ||
                                  (r > 0 && leaders[static_cast<size_t>(r)] == leaders[static_cast<size_t>(r) - 1]));
  if (!consecutive) {
    note_ = "ranks of one machine are not consecutive (place them by node, e.g. mpirun --map-by core): "
            "each rank is its own host and every hop between ranks is a message";
    for (int r = 0; r < comm.size(); ++r) leaders[static_cast<size_t>(r)] = r;
  }
  host_ = comm.split(leaders[static_cast<size_t>(comm.rank())], comm.rank());
  if (comm.max(host_.size()) > 1) {
    if (std::string problem = shared_window_problem(comm, host_); !problem.empty()) {
      note_ = "shared memory is unavailable (" + problem + "): each rank is its own host and every hop between "
              "ranks is a message";
      for (int r = 0; r < comm.size(); ++r) leaders[static_cast<size_t>(r)] = r;
      host_ = comm.split(comm.rank(), 0);
    }
  }
  first_rank_.clear();
  host_of_rank_.assign(static_cast<size_t>(comm.size()), 0);
  for (int r = 0; r < comm.size(); ++r) {
    if (leaders[static_cast<size_t>(r)] == r) first_rank_.push_back(r);
    host_of_rank_[static_cast<size_t>(r)] = static_cast<int>(first_rank_.size()) - 1;
  }
  first_rank_.push_back(comm.size());
  largest_ = 0;
  for (int h = 0; h < count(); ++h) largest_ = std::max(largest_, end_rank(h) - first_rank(h));
}

int HostTopology::host_of(int rank) const { return host_of_rank_[static_cast<size_t>(rank)]; }

std::string HostTopology::summary() const {
  std::vector<int> sizes;
  for (int h = 0; h < count(); ++h) sizes.push_back(end_rank(h) - first_rank(h));
  const bool uniform = std::all_of(sizes.begin(), sizes.end(), [&](int s) { return s == sizes.front(); });
  const auto plural = [](int n, const char* word) { return std::to_string(n) + " " + word + (n == 1 ? "" : "s"); };
  if (uniform) return plural(count(), "host") + " of " + plural(sizes.front(), "rank");
  std::string text = "hosts of ";
  for (size_t h = 0; h < sizes.size(); ++h) text += (h ? ", " : "") + std::to_string(sizes[h]);
  return text + " ranks";
}

}  // namespace graphrf
