#pragma once
// Error types. InputError is a user mistake (file, line, option): it is printed as one line and the job
// exits non-zero. A "collective" InputError is one every rank agreed on (see collective_try), so all ranks
// can leave cleanly; any other exception on one rank ends the job with MPI_Abort so no rank hangs.
#include <stdexcept>
#include <string>

namespace graphrf {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class InputError : public Error {
 public:
  explicit InputError(const std::string& what, bool collective = false) : Error(what), collective_(collective) {}
  bool collective() const { return collective_; }

 private:
  bool collective_;
};

class MpiError : public Error {
 public:
  using Error::Error;
};

class Hdf5Error : public Error {
 public:
  using Error::Error;
};

}  // namespace graphrf
