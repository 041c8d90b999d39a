#include "graphrf/cli/help.hpp"

#include <algorithm>
#include <charconv>
#include <sstream>
#include <string>

namespace graphrf {

po::typed_value<double>* double_value(double default_value) { return double_value(nullptr, default_value); }

po::typed_value<double>* double_value(double* field, double default_value) {
  return with_double_default(po::value<double>(field), default_value);
}

po::typed_value<double>* with_double_default(po::typed_value<double>* value, double default_value) {
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), default_value);
  std::string text(buf, ec == std::errc() ? end : buf);
  // to_chars writes exponents as e-06 and e+20; as written in code they read e-6 and e20.
  if (const auto e = text.find('e'); e != std::string::npos)
    text = text.substr(0, e + 1) + std::to_string(std::stoi(text.substr(e + 1)));
  return value->default_value(default_value, text);
}

void print_option_groups(std::ostream& os, const po::options_description& desc) {
  // Boost prints a description's own options under its caption, then each group added to it in the order
  // added, and has no accessor for the groups: the help is Boost's text (its columns and wrapping) with the
  // blocks reordered. A block starts at a caption, the one kind of line Boost does not indent.
  struct Block {
    std::string caption;
    std::vector<std::string> lines;
  };
  std::vector<Block> blocks;
  std::ostringstream boost_text;
  boost_text << desc;
  std::istringstream in(boost_text.str());
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    if (line[0] != ' ') {
      blocks.push_back({line, {}});
    } else {
      if (blocks.empty()) blocks.push_back({});
      blocks.back().lines.push_back(line);
    }
  }
  const auto shared_rank = [](const Block& b) {
    const std::string name = b.caption.substr(0, b.caption.find_last_of(':'));
    const auto it = std::find(kSharedOptionGroups.begin(), kSharedOptionGroups.end(), name);
    return it == kSharedOptionGroups.end() ? -1 : static_cast<int>(it - kSharedOptionGroups.begin());
  };
  std::stable_sort(blocks.begin(), blocks.end(), [&](const Block& a, const Block& b) { return shared_rank(a) < shared_rank(b); });
  bool first = true;
  for (const Block& b : blocks) {
    if (b.lines.empty()) continue;
    os << (first ? "" : "\n");
    if (!b.caption.empty()) os << b.caption << "\n";
    for (const std::string& line : b.lines) os << line << "\n";
    first = false;
  }
}

namespace {

// Levenshtein distance (insertions, deletions and substitutions cost 1).
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitution = diagonal + (a[i - 1] != b[j - 1]);
      diagonal = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, substitution});
    }
  }
  return row[b.size()];
}

}  // namespace

std::string closest_name(const std::string& typed, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_distance = 0;
  for (const std::string& name : candidates) {
    // A typo changes a few letters of a name, never all of it ("--x" is not a typo of "--f").
    const std::size_t d = edit_distance(typed, name);
    const bool close = d <= std::max<std::size_t>(1, std::max(typed.size(), name.size()) / 3) &&
                       d < std::min(typed.size(), name.size());
    if (close && (best.empty() || d < best_distance))
      best = name, best_distance = d;
  }
  if (!best.empty() || typed.size() < 3) return best;
  // A shortened name (--walk): abbreviations are not accepted, so name the one option it starts.
  std::vector<std::string> extensions;
  for (const std::string& name : candidates)
    if (name.starts_with(typed)) extensions.push_back(name);
  return extensions.size() == 1 ? extensions[0] : "";
}

std::vector<std::string> option_names(const po::options_description& desc) {
  std::vector<std::string> names;
  for (const auto& option : desc.options()) names.push_back(option->long_name());
  return names;
}

std::string unknown_option_message(const std::string& typed, const po::options_description& desc, const std::string& hint) {
  const std::string name = typed.substr(typed.find_first_not_of('-') == std::string::npos ? 0 : typed.find_first_not_of('-'));
  const std::string close = closest_name(name, option_names(desc));
  return "unknown option '" + typed + "' " + (close.empty() ? hint : "(did you mean --" + close + "?)");
}

}  // namespace graphrf
