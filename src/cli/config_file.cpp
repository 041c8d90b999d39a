// --config FILE.ini: read line by line so that every mistake names FILE:LINE, and command-line arguments
// that would otherwise be dropped or wrapped silently (stray positional words, negative unsigned values).
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "graphrf/cli/cli.hpp"

namespace graphrf {

namespace {

std::string trimmed(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

// Relative paths in an INI file are relative to the INI file's folder, not to where the job was started.
bool is_path_option(const std::string& name, const std::string& value) {
  if (name == "graph") return value.rfind("grid:", 0) != 0 && value.rfind("random:", 0) != 0;
  return name == "qkv" || name == "out" || (name == "partition" && value.rfind("file:", 0) == 0);
}

std::string resolve_against(const std::filesystem::path& folder, const std::string& name, const std::string& value) {
  const bool file_prefix = name == "partition";
  const std::string path = file_prefix ? value.substr(5) : value;
  if (path.empty() || std::filesystem::path(path).is_absolute()) return value;
  return (file_prefix ? "file:" : "") + (folder / path).lexically_normal().string();
}

}  // namespace

void check_parsed_arguments(const po::parsed_options& parsed, const po::variables_map& vm, const std::string& where) {
  for (const auto& option : parsed.options) {
    if (option.string_key.empty()) {
      const std::string word = option.original_tokens.empty() ? std::string() : option.original_tokens.front();
      throw InputError(where + "unexpected argument '" + word + "' (options start with --; a value belongs to the option before it)");
    }
    // Boost reads "-1" into an unsigned option as 2^64 - 1: refuse a sign where only non-negative values exist.
    if (!vm.count(option.string_key)) continue;
    const auto& value = vm[option.string_key].value();
    const bool is_unsigned = boost::any_cast<std::uint64_t>(&value) || boost::any_cast<unsigned>(&value);
    for (const auto& text : option.value) {
      if (is_unsigned && trimmed(text).rfind('-', 0) == 0)
        throw InputError(where + "--" + option.string_key + ": must be >= 0 (got '" + text + "')");
    }
  }
}

ConfigOrigins store_config_file(const std::string& path, const po::options_description& desc, po::variables_map& vm) {
  ConfigOrigins origins;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw InputError("--config " + path + ": is a directory, not an INI file");
  std::ifstream in(path);
  if (!in) throw InputError("--config " + path + ": cannot open");
  const std::filesystem::path folder = std::filesystem::absolute(path).parent_path();
  std::map<std::string, int> first_line;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string at = path + ":" + std::to_string(number) + ": ";
    const std::string text = trimmed(line);
    if (text.empty() || text[0] == '#' || text[0] == ';') continue;
    if (text[0] == '[')
      throw InputError(at + "INI sections are not supported: write 'name = value' lines with the long option names (got '" +
                       text + "')");
    const auto eq = text.find('=');
    if (eq == std::string::npos) throw InputError(at + "expected 'name = value' (got '" + text + "')");
    const std::string key = trimmed(text.substr(0, eq));
    if (!desc.find_nothrow(key, /*approx=*/false) || key == "config") {
      const std::string close = closest_name(key, option_names(desc));
      throw InputError(at + "unknown option '" + key + "' (" +
                       (close.empty() ? "graphrf COMMAND --help lists the options" : "did you mean " + close + "?") + ")");
    }
    if (const auto [it, fresh] = first_line.emplace(key, number); !fresh)
      throw InputError(at + "'" + key + "' is given twice (first on line " + std::to_string(it->second) + ")");
    // The command line wins: only a value this line sets is checked later under its FILE:LINE.
    if (!vm.count(key) || vm[key].defaulted()) origins[key] = path + ":" + std::to_string(number);
    std::istringstream one(key + " = " + trimmed(text.substr(eq + 1)) + "\n");
    try {
      po::parsed_options parsed = po::parse_config_file(one, desc);
      for (auto& option : parsed.options)
        if (option.value.size() == 1 && is_path_option(option.string_key, option.value[0]))
          option.value[0] = resolve_against(folder, option.string_key, option.value[0]);
      po::store(parsed, vm);
      check_parsed_arguments(parsed, vm, at);
    } catch (const po::error& e) {
      throw InputError(at + e.what());
    }
  }
  return origins;
}

std::string config_origin(const std::string& message, const ConfigOrigins& origins) {
  if (message.rfind("--", 0) != 0) return {};
  const std::size_t name_end = message.find_first_of(": ", 2);
  const auto origin = origins.find(message.substr(2, name_end == std::string::npos ? std::string::npos : name_end - 2));
  return origin == origins.end() ? std::string() : origin->second;
}

}  // namespace graphrf
