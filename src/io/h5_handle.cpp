#include "graphrf/io/h5_handle.hpp"

namespace graphrf::h5 {

void silence_error_printing() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

namespace {

struct InnermostEntry {
  bool found = false;
  std::string description;
  std::string function;
  hid_t minor = H5I_INVALID_HID;
};

// H5E_WALK_UPWARD starts with the innermost entry (n == 0), where the error was first detected.
herr_t record_innermost(unsigned n, const H5E_error2_t* entry, void* client) {
  auto* out = static_cast<InnermostEntry*>(client);
  if (n != 0 || out->found || entry == nullptr) return 0;
  out->found = true;
  out->description = entry->desc ? entry->desc : "";
  out->function = entry->func_name ? entry->func_name : "";
  out->minor = entry->min_num;
  return 0;
}

}  // namespace

std::string innermost_error() {
  InnermostEntry entry;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, record_innermost, &entry);
  std::string minor;
  if (entry.found && entry.minor >= 0) {
    char text[256] = {};
    if (H5Eget_msg(entry.minor, nullptr, text, sizeof text) > 0) minor = text;
  }
  H5Eclear2(H5E_DEFAULT);
  if (!entry.found) return "no HDF5 error recorded";
  std::string where = entry.function;
  if (!minor.empty()) where += (where.empty() ? "" : ": ") + minor;
  if (entry.description.empty()) return where;
  return where.empty() ? entry.description : entry.description + " (" + where + ")";
}

void fail(const std::string& operation, const std::string& object) {
  throw Hdf5Error(operation + " " + object + ": " + innermost_error());
}

Datatype utf8_string_type() {
  auto type = Datatype::checked(H5Tcopy(H5T_C_S1), "copy string type for", "variable-length UTF-8 strings");
  check(H5Tset_size(type.get(), H5T_VARIABLE), "set variable length of", "string type");
  check(H5Tset_cset(type.get(), H5T_CSET_UTF8), "set UTF-8 character set of", "string type");
  check(H5Tset_strpad(type.get(), H5T_STR_NULLTERM), "set NUL termination of", "string type");
  return type;
}

}  // namespace graphrf::h5
