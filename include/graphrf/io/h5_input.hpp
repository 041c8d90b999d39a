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
  // A scalar string attribute of an object (variable- or fixed-length, as graphrf and h5py write them); "" when
  // the object has no such attribute or it is not a string.
  std::string string_attribute(const std::string& object, const std::string& name) const;
  // Rows [begin, end) of a 1-d dataset of fixed-length strings (as /nodes/name is written), NUL padding removed.
  NodeNames read_rows_fixed_strings(const std::string& dataset, std::uint64_t begin, std::uint64_t end) const;

 private:
  void read_rows(const std::string& dataset, std::uint64_t begin, std::uint64_t end, hid_t memory_type, void* out) const;
  std::string path_;
  h5::File file_;
};

}  // namespace graphrf
