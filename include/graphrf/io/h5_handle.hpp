#pragma once
// RAII ownership of HDF5 identifiers and HDF5 error reporting.
//
// Every identifier an HDF5 call returns (file, group, object, dataset, dataspace, property list, datatype,
// attribute) is held in a Handle whose destructor closes it, so nothing leaks when an exception unwinds.
// Failures become Hdf5Error: "<operation> <object>: <innermost HDF5 error description> (<function>: <minor>)".
// The message is built at the failing call, before unwinding runs other HDF5 calls that clear the stack.
#include <hdf5.h>

#include <string>
#include <utility>

#include "graphrf/core/error.hpp"

namespace graphrf::h5 {

// Turns off HDF5's automatic printing of error stacks (H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr)).
// Idempotent; H5Output calls it. Errors are reported through Hdf5Error instead.
void silence_error_printing();

// The innermost (most specific) entry of the current thread's default HDF5 error stack, walked with H5Ewalk2,
// as "description (function: minor message)"; "no HDF5 error recorded" if the stack is empty. Clears the stack.
std::string innermost_error();

// Throws Hdf5Error("<operation> <object>: <innermost_error()>").
[[noreturn]] void fail(const std::string& operation, const std::string& object);

// Returns status; throws via fail() if it is negative (herr_t, htri_t and hid_t results alike).
template <class Status>
Status check(Status status, const std::string& operation, const std::string& object) {
  if (status < 0) fail(operation, object);
  return status;
}

// Owns one HDF5 identifier; Close is the matching H5?close function. Move-only.
template <herr_t (*Close)(hid_t)>
class Handle {
 public:
  Handle() noexcept = default;
  explicit Handle(hid_t id) noexcept : id_(id) {}
  // Takes ownership of an identifier returned by an HDF5 call, or throws Hdf5Error if the call failed.
  static Handle checked(hid_t id, const std::string& operation, const std::string& object) {
    if (id < 0) fail(operation, object);
    return Handle(id);
  }
  ~Handle() { reset(); }
  Handle(Handle&& other) noexcept : id_(std::exchange(other.id_, H5I_INVALID_HID)) {}
  Handle& operator=(Handle&& other) noexcept {
    if (this != &other) {
      reset();
      id_ = std::exchange(other.id_, H5I_INVALID_HID);
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;

  hid_t get() const noexcept { return id_; }
  explicit operator bool() const noexcept { return id_ >= 0; }

  // Closes now and returns HDF5's status (negative on failure; the error stack is left for the caller).
  // The handle is empty afterwards either way.
  herr_t close() noexcept {
    if (id_ < 0) return 0;
    const herr_t status = Close(std::exchange(id_, H5I_INVALID_HID));
    return status;
  }
  // Closes now, ignoring failure (destructors, cleanup after an error).
  void reset() noexcept { (void)close(); }
  // Gives up ownership without closing.
  hid_t release() noexcept { return std::exchange(id_, H5I_INVALID_HID); }

 private:
  hid_t id_ = H5I_INVALID_HID;
};

using File = Handle<H5Fclose>;
using Group = Handle<H5Gclose>;
using Object = Handle<H5Oclose>;  // a group or a dataset opened with H5Oopen
using Dataset = Handle<H5Dclose>;
using Dataspace = Handle<H5Sclose>;
using PropList = Handle<H5Pclose>;
using Datatype = Handle<H5Tclose>;
using Attribute = Handle<H5Aclose>;

// A new variable-length, NUL-terminated UTF-8 string type (what h5py writes for str, and reads back as str).
Datatype utf8_string_type();

}  // namespace graphrf::h5
