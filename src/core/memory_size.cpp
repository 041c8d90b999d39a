#include "graphrf/core/memory_size.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include <sys/resource.h>

#include "graphrf/core/error.hpp"

namespace graphrf {

namespace {

std::string read_text(const char* path) {
  std::ifstream in(path);
  if (!in) return {};
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The first integer in `text`, or -1 ("max", empty or unreadable).
long double leading_number(const std::string& text) {
  std::size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  std::uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(text.data() + i, text.data() + text.size(), v);
  if (ec != std::errc() || ptr == text.data() + i) return -1;
  return static_cast<long double>(v);
}

// The number after `key` (with its colon) in /proc text such as "VmRSS:   1234 kB", or -1 when absent.
long double field(const std::string& text, const std::string& key) {
  const auto at = text.find(key);
  return at == std::string::npos ? -1 : leading_number(text.substr(at + key.size()));
}

}  // namespace

std::uint64_t available_memory_bytes(const std::string& meminfo, const std::string& cgroup_limit,
                                     const std::string& cgroup_usage) {
  long double available = -1;
  const long double kib = field(meminfo, "MemAvailable:");
  if (kib >= 0) available = kib * 1024;
  const long double limit = leading_number(cgroup_limit);
  // cgroup v1 reports "no limit" as a huge number near 2^63: treat anything beyond 2^60 as none.
  if (limit >= 0 && limit < std::ldexp(1.0L, 60)) {
    const long double usage = std::max<long double>(0, leading_number(cgroup_usage));
    const long double left = std::max<long double>(0, limit - usage);
    available = available < 0 ? left : std::min(available, left);
  }
  // Known but exhausted is 1 byte, not 0 (which means unknown and disables the check).
  return available < 0 ? 0 : std::max<std::uint64_t>(1, static_cast<std::uint64_t>(available));
}

std::uint64_t available_memory_bytes() {
  std::string limit = read_text("/sys/fs/cgroup/memory.max");
  std::string usage = read_text("/sys/fs/cgroup/memory.current");
  if (limit.empty()) {
    limit = read_text("/sys/fs/cgroup/memory/memory.limit_in_bytes");
    usage = read_text("/sys/fs/cgroup/memory/memory.usage_in_bytes");
  }
  return available_memory_bytes(read_text("/proc/meminfo"), limit, usage);
}

std::uint64_t address_space_left_bytes(std::uint64_t soft_limit, const std::string& status) {
  if (soft_limit == 0 || soft_limit == static_cast<std::uint64_t>(RLIM_INFINITY)) return 0;
  const long double mapped = std::max<long double>(0, field(status, "VmSize:")) * 1024;
  const long double left = static_cast<long double>(soft_limit) - mapped;
  return left < 1 ? 1 : static_cast<std::uint64_t>(left);
}

std::uint64_t address_space_left_bytes() {
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) != 0) return 0;
  return address_space_left_bytes(static_cast<std::uint64_t>(limit.rlim_cur), read_text("/proc/self/status"));
}

ResidentBytes resident_bytes() {
  const std::string status = read_text("/proc/self/status");
  const auto bytes = [&](const char* key) {
    return static_cast<std::int64_t>(std::max<long double>(0, field(status, key)) * 1024);
  };
  return {bytes("VmRSS:"), bytes("RssShmem:")};
}

std::uint64_t smaller_known(std::uint64_t a, std::uint64_t b) {
  if (a == 0) return b;
  if (b == 0) return a;
  return std::min(a, b);
}

std::uint64_t parse_memory_size(const std::string& text, const std::string& option) {
  const auto bad = [&](const std::string& why) {
    return InputError(option + ": " + why + " (got '" + text + "'; e.g. 8G, 512M, 1.5GiB or a byte count)");
  };
  double value = 0;
  const char* begin = text.data();
  const char* end = begin + text.size();
  const auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || ptr == begin || !std::isfinite(value)) throw bad("not a memory size");
  std::string unit(ptr, end);
  for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (unit.size() >= 2 && unit.compare(unit.size() - 2, 2, "IB") == 0) unit.resize(unit.size() - 2);
  else if (unit.size() >= 2 && unit.back() == 'B') unit.pop_back();
  int shift = 0;
  if (unit.empty() || unit == "B") shift = 0;
  else if (unit == "K") shift = 10;
  else if (unit == "M") shift = 20;
  else if (unit == "G") shift = 30;
  else if (unit == "T") shift = 40;
  else throw bad("unknown unit '" + std::string(ptr, end) + "'");
  const long double bytes = std::ldexp(static_cast<long double>(value), shift);
  if (!(bytes >= 1)) throw bad("must be at least 1 byte");
  if (bytes > std::ldexp(1.0L, 63)) throw bad("larger than 2^63 bytes");
  return static_cast<std::uint64_t>(bytes);
}

std::string format_bytes(double bytes) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int unit = 0;
  while (bytes >= 1024 && unit < 6) bytes /= 1024, ++unit;
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, unit == 0 ? "%.0f %s" : "%.3g %s", bytes, kUnits[unit]);
  return buffer;
}

}  // namespace graphrf
