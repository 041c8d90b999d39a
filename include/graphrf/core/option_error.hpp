#pragma once
// One-line errors about a field of an options struct (e.g. kernel.beta), shared by every module that validates
// user parameters; the app names the flag that fills the field.
#include <sstream>
#include <string>
#include <string_view>

#include "graphrf/core/error.hpp"

namespace graphrf {

// Throws InputError("field: message").
[[noreturn]] inline void option_error(std::string_view option, const std::string& message) {
  throw InputError(std::string(option) + ": " + message);
}

// A number for a message, with up to `precision` significant digits.
inline std::string format_number(double x, int precision = 12) {
  std::ostringstream os;
  os.precision(precision);
  os << x;
  return os.str();
}

}  // namespace graphrf
