#pragma once
// One MPI request, owned: it is completed by test() or wait(). A request still running when it is destroyed
// (only when an exception leaves its owner, and the run then ends in MPI_Abort) is handed to MPI_Request_free
// rather than waited for, so a failing rank never blocks on a peer that may not answer.
#include <mpi.h>

namespace graphrf {

class Request {
 public:
  Request() = default;
  ~Request();
  Request(Request&& other) noexcept;
  Request& operator=(Request&& other) noexcept;
  Request(const Request&) = delete;
  Request& operator=(const Request&) = delete;

  // Where the MPI call that starts the operation writes the request (this one must not be running).
  MPI_Request* start();
  bool running() const { return request_ != MPI_REQUEST_NULL; }
  // Whether the operation is complete (true also when none was started).
  bool test();
  void wait();

 private:
  void abandon() noexcept;

  MPI_Request request_ = MPI_REQUEST_NULL;
};

}  // namespace graphrf
