#pragma once
// Reading HDF5 inputs: each rank opens the file on its own (no collective open needed) and reads the
// row range it wants with a hyperslab, so no rank reads a whole dataset.
#include <cstdint>
#include <string>
#include <vector>

#include "graphrf/io/h5_handle.hpp"
#include "graphrf/io/node_names.hpp"

namespace graphrf {

class H5Input {
 public:
  explicit H5Input(std::string path);  // InputError when the file cannot be opened as HDF5
  const std::string& path() const { return path_; }
  bool has(const std::string& dataset) const;
  std::vector<std::uint64_t> shape(const std::string& dataset) const;
  bool is_integer(const std::string& dataset) const;  // stored with an integer type
  // Rows [begin, end) of a dataset (all trailing dimensions), converted to double or int64.
  std::vector<double> read_rows_double(const std::string& dataset, std::uint64_t begin, std::uint64_t end) const;
  std::vector<std::int64_t> read_rows_int64(const std::string& dataset, std::uint64_t begin, std::uint64_t end) const;
  // A 1-D dataset of strings (fixed-length, NUL-padded as graphrf writes them, or variable-length as h5py
  // writes str): its length, and entries [begin, end). InputError naming the dataset for anything else.
  std::uint64_t string_count(const std::string& dataset) const;
  NodeNames read_strings(const std::string& dataset, std::uint64_t begin, std::uint64_t end) const;
  // A scalar string attribute of an object (variable- or fixed-length, as graphrf and h5py write them); "" when
  // the object has no such attribute or it is not a string.
  std::string string_attribute(const std::string& object, const std::string& name) const;

 private:
  void read_rows(const std::string& dataset, std::uint64_t begin, std::uint64_t end, hid_t memory_type, void* out) const;
  std::vector<std::uint64_t> shape_of_open(const h5::Dataset& d, const std::string& dataset) const;
  // Runs f: an HDF5 failure inside the opened file (a corrupt object header, a checksum mismatch on read) becomes
  // an InputError naming the file.
  template <class F>
  auto naming_file(F&& f) const -> decltype(f()) {
    try {
      return f();
    } catch (const Hdf5Error& e) {
      throw InputError(path_ + ": " + e.what() + " (the file is corrupt or not readable)");
    }
  }
  std::string path_;
  h5::File file_;
};

}  // namespace graphrf
