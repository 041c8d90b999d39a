#include "graphrf/io/report_output.hpp"

namespace graphrf {

void print_report(const Log& log, const Report& report) {
  for (const auto& f : report.figures())
    if (!f.label.empty()) log.info("result      " + f.label + " = " + figure_text(f));
  log.result(report.key_values());
}

void write_report(H5Output& out, const Report& report) {
  for (const auto& f : report.figures())
    for (const auto& target : f.attributes)
      std::visit([&](const auto& value) { out.set_attribute(target.object, target.name, value); }, f.value);
}

}  // namespace graphrf
