#pragma once
// One-line errors about a command-line option, shared by every module that validates user parameters.
#include <sstream>
#include <string>
#include <string_view>

#include "graphrf/core/error.hpp"

namespace graphrf {

// Throws InputError("--option: message").
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
