// Error paths and small helpers of the format text scanner (see format_text.hpp).
#include "format_text.hpp"

#include <algorithm>
#include <cmath>

#include "graphrf/core/error.hpp"

namespace graphrf::detail {

namespace {

constexpr std::size_t kExcerptChars = 60;
constexpr std::size_t kTokenChars = 40;

// At most `limit` bytes of `text`, cut before a UTF-8 continuation byte, "..." marking the cut.
std::string shorten(std::string_view text, std::size_t limit) {
  if (text.size() <= limit) return std::string(text);
  std::size_t cut = limit - 3;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  std::string out(text.substr(0, cut));
  out += "...";
  return out;
}

std::string escape_controls(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const auto b = static_cast<unsigned char>(c);
    if (c == '\t') {
      out += "\\t";
    } else if (b < 0x20 || b == 0x7F) {
      out += '?';
    } else {
      out += c;
    }
  }
  return out;
}

std::string quoted_token(std::string_view token) { return "'" + escape_controls(shorten(token, kTokenChars)) + "'"; }

// What follows the longest numeric prefix of a token that has trailing garbage.
std::string_view trailing_part(std::string_view token, bool integer) {
  const char* begin = token.data();
  const char* end = begin + token.size();
  if (!integer && token.size() > 1 && token[0] == '+') ++begin;
  const char* ptr = begin;
  if (integer) {
    std::int64_t v = 0;
    ptr = std::from_chars(begin, end, v).ptr;
  } else {
    double v = 0;
    ptr = std::from_chars(begin, end, v, std::chars_format::general).ptr;
  }
  return std::string_view(ptr, static_cast<std::size_t>(end - ptr));
}

}  // namespace

std::string excerpt(std::string_view text) { return escape_controls(shorten(text, kExcerptChars)); }

void throw_line_error(const LineRef& at, std::string_view what) {
  std::string message = at.file;
  message += ':';
  message += std::to_string(at.number);
  message += ": ";
  message += what;
  message += " (got '";
  message += excerpt(at.text);
  message += "')";
  throw InputError(message);
}

void throw_file_error(const std::string& file, std::string_view what) {
  std::string message = file;
  message += ": ";
  message += what;
  throw InputError(message);
}

void check_not_compressed(const std::string& file, std::string_view head) {
  struct Magic {
    std::string_view bytes;
    const char* name;
  };
  static constexpr Magic kMagic[] = {
      {std::string_view("\x1F\x8B", 2), "gzip"},
      {std::string_view("\xFD" "7zXZ\x00", 6), "xz"},
      {std::string_view("\x28\xB5\x2F\xFD", 4), "zstd"},
      {std::string_view("PK\x03\x04", 4), "zip"},
  };
  const bool bzip2 = head.size() >= 4 && head.substr(0, 3) == "BZh" && head[3] >= '1' && head[3] <= '9';
  if (bzip2) throw_file_error(file, "the file is bzip2-compressed; decompress it first (graph text formats are read uncompressed)");
  for (const Magic& m : kMagic) {
    if (head.substr(0, m.bytes.size()) == m.bytes) {
      throw_file_error(file, std::string("the file is ") + m.name +
                                 "-compressed; decompress it first (graph text formats are read uncompressed)");
    }
  }
}

std::size_t find_lone_cr(std::string_view text) {
  if (text.empty()) return std::string_view::npos;
  std::size_t at = 0;
  while (true) {
    const void* found = std::memchr(text.data() + at, '\r', text.size() - at);
    if (found == nullptr) return std::string_view::npos;
    const auto cr = static_cast<std::size_t>(static_cast<const char*>(found) - text.data());
    if (cr + 1 < text.size() && text[cr + 1] != '\n' && text[cr + 1] != '\r') return cr;
    at = cr + 1;
  }
}

void throw_lone_cr(const std::string& file, std::int64_t first_line, std::string_view text, std::size_t cr) {
  const std::size_t newline_before = text.rfind('\n', cr);
  const std::size_t start = newline_before == std::string_view::npos ? 0 : newline_before + 1;
  const std::size_t newline_after = text.find('\n', cr);
  const std::size_t end = newline_after == std::string_view::npos ? text.size() : newline_after;
  const std::string_view line = text.substr(start, end - start);
  const auto lines_before = std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(start), '\n');
  const std::int64_t number = first_line + static_cast<std::int64_t>(lines_before);
  throw_line_error(LineRef{file, number, line},
                   "a carriage return (CR) inside the line: lines end at LF, so CR line endings would join lines; "
                   "convert with tr '\\r' '\\n' < FILE > NEW (or dos2unix -c mac)");
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

bool istarts_with(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && iequals(s.substr(0, prefix.size()), prefix);
}

int count_tokens(std::string_view line, bool commas) {
  Tokenizer tokens(line, commas);
  std::string_view t;
  int n = 0;
  while (tokens.next(t)) ++n;
  return n;
}

void throw_bad_integer(const LineRef& at, std::string_view label, std::string_view token, NumberStatus status) {
  std::string what(label);
  switch (status) {
    case NumberStatus::empty:
      what = "empty " + what;
      break;
    case NumberStatus::invalid:
      what += " " + quoted_token(token) + " is not an integer";
      break;
    case NumberStatus::trailing:
      what += " " + quoted_token(token) + " is not an integer: trailing " + quoted_token(trailing_part(token, true));
      break;
    case NumberStatus::out_of_range:
      what += " " + quoted_token(token) + " does not fit in a 64-bit signed integer";
      break;
    case NumberStatus::ok:
      what += " " + quoted_token(token) + " is invalid";
      break;
  }
  throw_line_error(at, what);
}

void throw_id_out_of_range(const LineRef& at, std::string_view label, std::int64_t id, std::int64_t lo,
                           std::int64_t hi) {
  std::string what(label);
  what += ' ';
  what += std::to_string(id);
  if (hi < 0 && id < 0) {
    what += " is negative";
  } else {
    what += " out of range " + std::to_string(lo) + ".." + (hi < 0 ? std::string() : std::to_string(hi));
  }
  throw_line_error(at, what);
}

void throw_bad_weight(const LineRef& at, std::string_view where, std::string_view token, NumberStatus status,
                      double value) {
  std::string what;
  switch (status) {
    case NumberStatus::empty:
      what = "empty weight" + std::string(where);
      break;
    case NumberStatus::invalid:
      what = "weight " + quoted_token(token) + std::string(where) + " is not a number";
      break;
    case NumberStatus::trailing:
      what = "weight " + quoted_token(token) + std::string(where) + " is not a number: trailing " +
             quoted_token(trailing_part(token, false));
      if (const std::string_view rest = trailing_part(token, false); rest.size() >= 2 && rest[0] == ',' && is_digit(rest[1]))
        what += " (a decimal comma? write the weight with a decimal point)";
      break;
    case NumberStatus::out_of_range:
      what = "weight " + quoted_token(token) + std::string(where) + " is out of the range of a double";
      break;
    case NumberStatus::ok:
      what = "weight " + quoted_token(token) + std::string(where);
      if (std::isnan(value)) {
        what += " is NaN";
      } else if (std::isinf(value)) {
        what += " is infinite";
      } else if (value == 0) {
        what += " is zero";
      } else {
        what += " is negative";
      }
      what += "; weights must be finite and > 0";
      break;
  }
  throw_line_error(at, what);
}

}  // namespace graphrf::detail
