#include "graphrf/io/h5_input.hpp"

#include <unistd.h>

#include "graphrf/core/memory_budget.hpp"

namespace graphrf {

H5Input::H5Input(std::string path) : path_(std::move(path)) {
  h5::silence_error_printing();
  if (::access(path_.c_str(), R_OK) != 0) throw FileError(path_ + ": cannot open for reading");
  const hid_t id = H5Fopen(path_.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (id < 0) throw InputError(path_ + ": not an HDF5 file (" + h5::innermost_error() + ")");
  file_ = h5::File(id);
}

bool H5Input::has(const std::string& dataset) const {
  // H5Lexists on each path component so that "/a/b" with no "/a" is a plain false.
  std::string prefix;
  size_t pos = 0;
  while (pos < dataset.size()) {
    size_t next = dataset.find('/', pos + 1);
    if (next == std::string::npos) next = dataset.size();
    prefix = dataset.substr(0, next);
    if (prefix != "/" && H5Lexists(file_.get(), prefix.c_str(), H5P_DEFAULT) <= 0) return false;
    pos = next;
  }
  return true;
}

namespace {

const char* type_class_name(H5T_class_t c) {
  switch (c) {
    case H5T_STRING: return "string";
    case H5T_COMPOUND: return "compound";
    case H5T_ENUM: return "enum";
    case H5T_OPAQUE: return "opaque";
    case H5T_REFERENCE: return "reference";
    case H5T_VLEN: return "variable-length";
    case H5T_ARRAY: return "array";
    case H5T_BITFIELD: return "bitfield";
    default: return "non-numeric";
  }
}

}  // namespace

std::vector<std::uint64_t> H5Input::shape(const std::string& dataset) const {
  if (!has(dataset)) throw InputError(path_ + ": no dataset " + dataset);
  const hid_t id = H5Dopen2(file_.get(), dataset.c_str(), H5P_DEFAULT);
  if (id < 0) {
    const std::string why = h5::innermost_error();
    const hid_t group = H5Gopen2(file_.get(), dataset.c_str(), H5P_DEFAULT);
    if (group >= 0) {
      H5Gclose(group);
      throw InputError(path_ + ": " + dataset + " is not a dataset (a group); expected a numeric dataset");
    }
    H5Eclear2(H5E_DEFAULT);
    throw FileError(path_ + ": cannot open dataset " + dataset + ": " + why + " (the file is corrupt or not readable)");
  }
  return naming_file([&] { return shape_of_open(h5::Dataset(id), dataset); });
}

std::vector<std::uint64_t> H5Input::shape_of_open(const h5::Dataset& d, const std::string& dataset) const {
  // Only numbers convert to the int64/double rows the readers return: name anything else here.
  const auto type = h5::Datatype::checked(H5Dget_type(d.get()), "get type", dataset);
  const H5T_class_t type_class = H5Tget_class(type.get());
  if (type_class != H5T_INTEGER && type_class != H5T_FLOAT)
    throw InputError(path_ + ": " + dataset + " holds " + type_class_name(type_class) + " values; expected numbers");
  const auto space = h5::Dataspace::checked(H5Dget_space(d.get()), "get dataspace", dataset);
  const int rank = h5::check(H5Sget_simple_extent_ndims(space.get()), "get rank", dataset);
  std::vector<hsize_t> dims(static_cast<size_t>(rank));
  h5::check(H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr), "get dims", dataset);
  return std::vector<std::uint64_t>(dims.begin(), dims.end());
}

bool H5Input::is_integer(const std::string& dataset) const {
  return naming_file([&] {
    const auto d = h5::Dataset::checked(H5Dopen2(file_.get(), dataset.c_str(), H5P_DEFAULT), "open dataset", dataset);
    const auto type = h5::Datatype::checked(H5Dget_type(d.get()), "get type", dataset);
    return H5Tget_class(type.get()) == H5T_INTEGER;
  });
}

void H5Input::read_rows(const std::string& dataset, std::uint64_t begin, std::uint64_t end, hid_t memory_type,
                        void* out) const {
  const auto dims = shape(dataset);
  if (dims.empty() || end > dims[0] || begin > end) throw InputError(path_ + ": " + dataset + ": bad row range");
  naming_file([&] {
    const auto d = h5::Dataset::checked(H5Dopen2(file_.get(), dataset.c_str(), H5P_DEFAULT), "open dataset", dataset);
    const auto file_space = h5::Dataspace::checked(H5Dget_space(d.get()), "get dataspace", dataset);
    std::vector<hsize_t> start(dims.size(), 0), count(dims.begin(), dims.end());
    start[0] = begin;
    count[0] = end - begin;
    if (count[0] == 0) return;
    h5::check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr),
              "select rows", dataset);
    const auto memory_space = h5::Dataspace::checked(
        H5Screate_simple(static_cast<int>(count.size()), count.data(), nullptr), "create dataspace", dataset);
    // A checksum mismatch (Fletcher32) or a failed decompression surfaces here.
    h5::check(H5Dread(d.get(), memory_type, memory_space.get(), file_space.get(), H5P_DEFAULT, out), "read", dataset);
  });
}

namespace {
std::uint64_t row_width(const std::vector<std::uint64_t>& dims) {
  std::uint64_t w = 1;
  for (size_t k = 1; k < dims.size(); ++k) w *= dims[k];
  return w;
}

// A dataset may declare any shape without storing data (chunked, never written): its rows are checked
// against the memory budget before the buffer for them is allocated.
void require_rows_fit(const std::string& path, const std::string& dataset, const std::vector<std::uint64_t>& dims,
                      std::uint64_t rows) {
  std::string shape_text;
  double values = static_cast<double>(rows);  // in floating point: the product of declared sizes may exceed 2^64
  for (size_t k = 0; k < dims.size(); ++k) {
    shape_text += (k == 0 ? "" : " x ") + std::to_string(dims[k]);
    if (k > 0) values *= static_cast<double>(dims[k]);
  }
  require_memory(8.0 * values,
                 path + ": " + dataset + " (shape " + shape_text + "), reading " + std::to_string(rows) + " rows,");
}
}  // namespace

std::vector<double> H5Input::read_rows_double(const std::string& dataset, std::uint64_t begin, std::uint64_t end) const {
  const auto dims = shape(dataset);
  if (end >= begin) require_rows_fit(path_, dataset, dims, end - begin);
  std::vector<double> out((end - begin) * row_width(dims));
  read_rows(dataset, begin, end, H5T_NATIVE_DOUBLE, out.data());
  return out;
}

std::vector<std::int64_t> H5Input::read_rows_int64(const std::string& dataset, std::uint64_t begin, std::uint64_t end) const {
  const auto dims = shape(dataset);
  if (end >= begin) require_rows_fit(path_, dataset, dims, end - begin);
  std::vector<std::int64_t> out((end - begin) * row_width(dims));
  read_rows(dataset, begin, end, H5T_NATIVE_INT64, out.data());
  return out;
}

std::uint64_t H5Input::string_count(const std::string& dataset) const {
  if (!has(dataset)) throw InputError(path_ + ": no dataset " + dataset);
  const auto d = h5::Dataset::checked(H5Dopen2(file_.get(), dataset.c_str(), H5P_DEFAULT), "open dataset", dataset);
  const auto type = h5::Datatype::checked(H5Dget_type(d.get()), "get type", dataset);
  if (H5Tget_class(type.get()) != H5T_STRING)
    throw InputError(path_ + ": " + dataset + " must hold strings (node names)");
  const auto space = h5::Dataspace::checked(H5Dget_space(d.get()), "get dataspace", dataset);
  if (h5::check(H5Sget_simple_extent_ndims(space.get()), "get rank", dataset) != 1)
    throw InputError(path_ + ": " + dataset + " must be a vector of strings (one name per row)");
  hsize_t n = 0;
  h5::check(H5Sget_simple_extent_dims(space.get(), &n, nullptr), "get dims", dataset);
  return n;
}

NodeNames H5Input::read_strings(const std::string& dataset, std::uint64_t begin, std::uint64_t end) const {
  const std::uint64_t n = string_count(dataset);
  if (end > n || begin > end) throw InputError(path_ + ": " + dataset + ": bad row range");
  NodeNames out;
  if (begin == end) return out;
  const auto d = h5::Dataset::checked(H5Dopen2(file_.get(), dataset.c_str(), H5P_DEFAULT), "open dataset", dataset);
  const auto file_type = h5::Datatype::checked(H5Dget_type(d.get()), "get type", dataset);
  const auto file_space = h5::Dataspace::checked(H5Dget_space(d.get()), "get dataspace", dataset);
  hsize_t start = begin, count = end - begin;
  h5::check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, &start, nullptr, &count, nullptr), "select rows",
            dataset);
  const auto memory_space =
      h5::Dataspace::checked(H5Screate_simple(1, &count, nullptr), "create dataspace", dataset);
  if (H5Tis_variable_str(file_type.get()) > 0) {
    const auto memory_type = h5::Datatype::checked(H5Tcopy(H5T_C_S1), "copy type", dataset);
    h5::check(H5Tset_size(memory_type.get(), H5T_VARIABLE), "set size", dataset);
    h5::check(H5Tset_cset(memory_type.get(), H5Tget_cset(file_type.get())), "set cset", dataset);
    std::vector<char*> text(count, nullptr);
    h5::check(H5Dread(d.get(), memory_type.get(), memory_space.get(), file_space.get(), H5P_DEFAULT, text.data()), "read",
              dataset);
    for (char* t : text) out.push_back(t ? std::string_view(t) : std::string_view());
    H5Dvlen_reclaim(memory_type.get(), memory_space.get(), H5P_DEFAULT, text.data());
    return out;
  }
  const std::size_t width = H5Tget_size(file_type.get());
  const auto memory_type = h5::Datatype::checked(H5Tcopy(file_type.get()), "copy type", dataset);
  std::vector<char> bytes(count * width);
  h5::check(H5Dread(d.get(), memory_type.get(), memory_space.get(), file_space.get(), H5P_DEFAULT, bytes.data()), "read",
            dataset);
  for (std::size_t k = 0; k < count; ++k) {
    std::string_view name(bytes.data() + k * width, width);
    name = name.substr(0, name.find('\0'));  // NUL-padded (or NUL-terminated)
    if (H5Tget_strpad(file_type.get()) == H5T_STR_SPACEPAD) name = name.substr(0, name.find_last_not_of(' ') + 1);
    out.push_back(name);
  }
  return out;
}

std::string H5Input::string_attribute(const std::string& object, const std::string& name) const {
  if (!has(object) || H5Aexists_by_name(file_.get(), object.c_str(), name.c_str(), H5P_DEFAULT) <= 0) return {};
  const auto attribute = h5::Attribute::checked(H5Aopen_by_name(file_.get(), object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT),
                                                "open attribute " + name + " of", object);
  const auto type = h5::Datatype::checked(H5Aget_type(attribute.get()), "get type of attribute " + name + " of", object);
  if (H5Tget_class(type.get()) != H5T_STRING) return {};
  if (H5Tis_variable_str(type.get()) > 0) {
    char* text = nullptr;
    h5::check(H5Aread(attribute.get(), type.get(), &text), "read attribute " + name + " of", object);
    std::string value = text != nullptr ? text : "";
    H5free_memory(text);
    return value;
  }
  std::string value(H5Tget_size(type.get()), '\0');
  h5::check(H5Aread(attribute.get(), type.get(), value.data()), "read attribute " + name + " of", object);
  return value.substr(0, value.find('\0'));
}

}  // namespace graphrf
