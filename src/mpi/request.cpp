#include "graphrf/mpi/request.hpp"

#include "graphrf/mpi/communicator.hpp"

namespace graphrf {

Request::~Request() { abandon(); }

Request::Request(Request&& other) noexcept : request_(other.request_) { other.request_ = MPI_REQUEST_NULL; }

Request& Request::operator=(Request&& other) noexcept {
  if (this != &other) {
    abandon();
    request_ = other.request_;
    other.request_ = MPI_REQUEST_NULL;
  }
  return *this;
}

MPI_Request* Request::start() {
  if (running()) throw Error("Request::start: the previous operation is still running");
  return &request_;
}

bool Request::test() {
  if (!running()) return true;
  int done = 0;
  check_mpi(MPI_Test(&request_, &done, MPI_STATUS_IGNORE), "MPI_Test");
  return done != 0;
}

void Request::wait() {
  if (running()) check_mpi(MPI_Wait(&request_, MPI_STATUS_IGNORE), "MPI_Wait");
}

void Request::abandon() noexcept {
  if (running()) MPI_Request_free(&request_);
  request_ = MPI_REQUEST_NULL;
}

}  // namespace graphrf
