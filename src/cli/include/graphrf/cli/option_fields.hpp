#pragma once
// The flags of the library's option fields. The library names fields in its errors ("kernel.beta: diffusion needs
// beta > 0"); the apps (the CLI and the Python package, which promises the CLI's messages) show the flag
// ("--beta: ..."). No Boost here: the Python package compiles option_fields.cpp without the CLI.
#include <string>

namespace graphrf {

// `message` with every whole field name (walk.p_halt, kernel.beta, ...) replaced by its flag (--p-halt, --beta).
std::string with_option_flags(const std::string& message);

}  // namespace graphrf
