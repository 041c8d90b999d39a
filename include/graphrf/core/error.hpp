#pragma once
// Error types. InputError is a user mistake (file, line, option): it is printed as one line and the job
// exits non-zero. A "collective" InputError is one every rank agreed on (see collective_try), so all ranks
// can leave cleanly; any other exception on one rank ends the job with MPI_Abort so no rank hangs. FileError is
// the InputError of a file that cannot be opened or read at all (the Python package raises it as OSError, the
// other InputErrors as ValueError); its kind survives collective_try.
#include <stdexcept>
#include <string>

namespace graphrf {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class InputError : public Error {
 public:
  // What is wrong: the input itself (content, options), or a file that cannot be opened or read.
  enum class Kind { input, file };
  explicit InputError(const std::string& what, bool collective = false, Kind kind = Kind::input)
      : Error(what), collective_(collective), kind_(kind) {}
  bool collective() const { return collective_; }
  Kind kind() const { return kind_; }

 private:
  bool collective_;
  Kind kind_;
};

// A file that cannot be opened or read (missing, not permitted, a directory, an I/O error); not its content.
class FileError : public InputError {
 public:
  explicit FileError(const std::string& what, bool collective = false) : InputError(what, collective, Kind::file) {}
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
