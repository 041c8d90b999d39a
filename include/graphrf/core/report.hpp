#pragma once
// The figures of one run, in the order they were measured: each printed once as a log line, once in the
// `RESULT key=value` line for scripts and, where it names HDF5 attributes, written there. A method fills a
// Report; one driver (io/report_output.hpp) prints and writes it, so a figure is stated in one place.
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace graphrf {

// Where in the output file a figure is also kept: the attribute `name` of the group or dataset `object`.
struct AttributeTarget {
  std::string object;
  std::string name;
};

struct Figure {
  std::string key;                        // the RESULT key (snake_case)
  std::variant<std::int64_t, double, std::string> value;
  int digits = 3;                         // fixed digits of a double in the RESULT line (kSignificant: see there)
  std::string label;                      // words for the log line; empty: not logged (a script-only figure)
  std::vector<AttributeTarget> attributes;  // where it is written in the output file (none: not written)
};

// Figure::digits of a double shown as a stream shows it by default: 6 significant digits, fixed or scientific.
inline constexpr int kSignificant = -1;

// The value as the RESULT line and the log show it: integers in full, doubles with `digits` fixed digits (or 6
// significant ones), text as it is.
std::string figure_text(const Figure& f);

class Report {
 public:
  Report& count(std::string key, std::int64_t value, std::string label = {}, std::vector<AttributeTarget> attributes = {}) {
    figures_.push_back({std::move(key), value, 0, std::move(label), std::move(attributes)});
    return *this;
  }
  Report& number(std::string key, double value, int digits, std::string label = {},
                 std::vector<AttributeTarget> attributes = {}) {
    figures_.push_back({std::move(key), value, digits, std::move(label), std::move(attributes)});
    return *this;
  }
  // A double with 6 significant digits (kSignificant), for values of any magnitude.
  Report& significant(std::string key, double value, std::string label = {}, std::vector<AttributeTarget> attributes = {}) {
    return number(std::move(key), value, kSignificant, std::move(label), std::move(attributes));
  }
  // Text without spaces (the RESULT line splits on them), e.g. a permutation "1,3,2".
  Report& text(std::string key, std::string value, std::string label = {}, std::vector<AttributeTarget> attributes = {}) {
    figures_.push_back({std::move(key), std::move(value), 0, std::move(label), std::move(attributes)});
    return *this;
  }
  // A figure kept only in the output file: no RESULT key and no log line (e.g. a figure scripts read from the
  // file, or one the RESULT line leaves out in some runs while the file always has it).
  Report& attribute(std::variant<std::int64_t, double> value, std::vector<AttributeTarget> attributes) {
    Figure f{{}, {}, 0, {}, std::move(attributes)};
    std::visit([&](auto v) { f.value = v; }, value);
    figures_.push_back(std::move(f));
    return *this;
  }
  const std::vector<Figure>& figures() const { return figures_; }
  // The figure called `key` (nullptr if the run did not measure it).
  const Figure* find(const std::string& key) const {
    for (const auto& f : figures_)
      if (f.key == key) return &f;
    return nullptr;
  }
  // "k1=v1 k2=v2 ..." in the order the figures were added (figures without a key left out).
  std::string key_values() const;
  // Appends another report's figures (e.g. a method's own report inside a command's).
  Report& append(const Report& other) {
    figures_.insert(figures_.end(), other.figures_.begin(), other.figures_.end());
    return *this;
  }

 private:
  std::vector<Figure> figures_;
};

}  // namespace graphrf
