#pragma once
// Where an output file lives while it is written, and what is checked before a run may write it.
//
// Every writer (H5Output, graphrf couple's sigma file, graphrf-partition's part file) writes to a temporary
// name of its own, PATH.<host>.<pid>.<16 hex digits>.partial, which rank 0 creates exclusively (O_EXCL) and
// broadcasts, and publishes it by renaming it to PATH. Two runs writing the same PATH therefore never share a
// file: the last one to finish wins, whole. Rank 0 holds an flock() on its temporary file until it publishes it;
// a later run to the same PATH removes the temporaries it can lock (their owner has died, e.g. by SIGKILL or
// MPI_Abort) and never touches a live run's. Where the file system has no flock() the temporary is created all
// the same and stale ones are left for the user.
#include <cstdint>
#include <string>
#include <vector>

#include "graphrf/mpi/communicator.hpp"

namespace graphrf {

// An input file of the command and the option that named it, e.g. {"--graph", "g.edges"}.
struct NamedInput {
  std::string option;
  std::string path;
};

// Checks early (before any compute) that `path` may be written: it is not empty; it is not an existing
// directory, device, FIFO or socket (only regular files are replaced); it is not the same file (device and
// inode, after symlinks) as any of `inputs`; and rank 0 can create a temporary file next to it (created and
// removed again; stale temporaries of dead runs are removed on the way). Collective: every rank throws the same
// collective InputError naming --out and the reason otherwise.
void check_output_writable(const Communicator& comm, const std::string& path, const std::vector<NamedInput>& inputs = {});

// A run's temporary file for the output `path` (see the top of this header).
class OutputTemporary {
 public:
  // Collective. Rank 0 removes stale temporaries of `path`, creates and locks a fresh one and broadcasts its
  // name; every rank throws the same collective InputError("--out PATH: cannot create file: ...") if it cannot.
  OutputTemporary(const Communicator& comm, std::string path);
  // Rank 0 removes the temporary file unless it was published, and releases the lock.
  ~OutputTemporary();
  OutputTemporary(const OutputTemporary&) = delete;
  OutputTemporary& operator=(const OutputTemporary&) = delete;

  const std::string& path() const { return temporary_; }
  // Rank 0 only: allocates the disk blocks of the temporary file's holes and of `extra` bytes past its end,
  // without changing its size or contents (fallocate with FALLOC_FL_KEEP_SIZE), so that later writes there
  // cannot fail for lack of space. Returns "" on success or where the file system cannot allocate ahead, else
  // the reason (strerror).
  std::string reserve(std::uint64_t extra);
  // Rank 0 only: frees what reserve() allocated past the end the file has now (truncating it to its own size).
  void trim_reserve();
  // Rank 0 only: renames the temporary file to the output path and releases the lock. Returns "" on success, else
  // the reason (the temporary file is then removed): the target became something other than a regular file, or the
  // rename failed.
  std::string publish();

 private:
  Communicator comm_;
  std::string target_;
  std::string temporary_;
  int lock_fd_ = -1;  // rank 0: the open, flock()ed temporary file
  bool published_ = false;
};

}  // namespace graphrf
