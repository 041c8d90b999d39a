#include "graphrf/core/report.hpp"

#include <sstream>

namespace graphrf {

std::string figure_text(const Figure& f) {
  if (const auto* i = std::get_if<std::int64_t>(&f.value)) return std::to_string(*i);
  if (const auto* t = std::get_if<std::string>(&f.value)) return *t;
  std::ostringstream s;
  if (f.digits == kSignificant) {
    s << std::get<double>(f.value);
    return s.str();
  }
  s.precision(f.digits);
  s << std::fixed << std::get<double>(f.value);
  return s.str();
}

std::string Report::key_values() const {
  std::string line;
  for (const auto& f : figures_) {
    if (f.key.empty()) continue;
    if (!line.empty()) line += ' ';
    line += f.key + '=' + figure_text(f);
  }
  return line;
}

}  // namespace graphrf
