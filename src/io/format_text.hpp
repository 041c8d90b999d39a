#pragma once
// Text scanning shared by the graph format parsers (internal to the library): line iteration over a chunk
// or a file head, blank/comma separated tokens, strict number parsing with std::from_chars, and the one-line
// "FILE:LINE: what (got '...')" InputError every parser throws. The hot paths are inline and allocate
// nothing; the error paths are out of line.
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>

#include "graphrf/io/graph_formats.hpp"

namespace graphrf::detail {

// ---- errors ---------------------------------------------------------------------------------------------

// A line of the input, for error messages.
struct LineRef {
  const std::string& file;
  std::int64_t number;    // global 1-based
  std::string_view text;  // without the line terminator
};

// The text shown inside got '...': at most 60 characters ("..." marks a cut), tabs shown as \t and other
// control bytes as '?', so the message stays on one line.
std::string excerpt(std::string_view text);

// Throws InputError "FILE:LINE: what (got 'excerpt')".
[[noreturn]] void throw_line_error(const LineRef& at, std::string_view what);
// Throws InputError "FILE: what".
[[noreturn]] void throw_file_error(const std::string& file, std::string_view what);

// Throws InputError when the head starts with the magic bytes of gzip, bzip2, xz, zstd or zip.
void check_not_compressed(const std::string& file, std::string_view head);

// Offset of the first carriage return followed by something other than CR or LF (npos if none). Lines end at
// '\n' only, so CR (old Mac) line endings or a stray CR would join lines silently: such a CR is refused.
std::size_t find_lone_cr(std::string_view text);
// Throws InputError "FILE:LINE: ... convert with tr" for the line of text[cr]; text's first line is first_line.
[[noreturn]] void throw_lone_cr(const std::string& file, std::int64_t first_line, std::string_view text, std::size_t cr);

// ---- characters and lines -------------------------------------------------------------------------------

inline bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

inline std::string_view trim_left(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && is_blank(s[i])) ++i;
  return s.substr(i);
}

inline std::string_view trim(std::string_view s) {
  s = trim_left(s);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

// Case-insensitive ASCII comparison.
bool iequals(std::string_view a, std::string_view b);
bool istarts_with(std::string_view s, std::string_view prefix);

// Length of a UTF-8 byte order mark at the start of `text` (0 or 3).
inline std::size_t bom_length(std::string_view text) {
  return text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
}

// Calls f(line, index) for every line of `text` (index 0-based); the line excludes '\n' and one '\r' before
// it. A last line without '\n' is a line; an empty text has no lines.
template <class F>
void for_each_line(std::string_view text, F&& f) {
  const char* p = text.data();
  const char* const end = p + text.size();
  std::int64_t index = 0;
  while (p < end) {
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
    const char* line_end = nl ? nl : end;
    std::string_view line(p, static_cast<std::size_t>(line_end - p));
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    f(line, index);
    ++index;
    p = nl ? nl + 1 : end;
  }
}

// The complete lines of a file head with their byte offsets, after a UTF-8 byte order mark. A last line
// without '\n' counts only when the head is shorter than kFormatHeadBytes (then it is the whole file).
class HeadLines {
 public:
  explicit HeadLines(std::string_view head) : head_(head), pos_(bom_length(head)), start_(pos_) {}

  // Advances to the next complete line; false at the end of the usable head.
  bool next() {
    if (pos_ >= head_.size()) return false;
    const std::size_t nl = head_.find('\n', pos_);
    std::size_t line_end = nl;
    if (nl == std::string_view::npos) {
      if (static_cast<std::int64_t>(head_.size()) >= kFormatHeadBytes) return false;  // may be cut
      line_end = head_.size();
    }
    text = head_.substr(pos_, line_end - pos_);
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    ++number;
    pos_ = nl == std::string_view::npos ? head_.size() : nl + 1;
    next_offset = static_cast<std::int64_t>(pos_);
    return true;
  }

  // Byte offset of the first line (after a byte order mark).
  std::int64_t start_offset() const { return static_cast<std::int64_t>(start_); }

  std::string_view text;          // the current line without its terminator
  std::int64_t number = 0;        // its 1-based line number
  std::int64_t next_offset = 0;   // byte offset of the line after it

 private:
  std::string_view head_;
  std::size_t pos_;
  std::size_t start_;
};

// ---- tokens ---------------------------------------------------------------------------------------------

// Splits a line into tokens separated by runs of blanks; with commas, one comma (with optional blanks around
// it) also separates, and a comma where a token is expected delimits an empty field (CSV: "1,,2" has an
// empty second field, "1,2," an empty third one).
class Tokenizer {
 public:
  Tokenizer(std::string_view line, bool commas)
      : p_(line.data()), end_(line.data() + line.size()), commas_(commas) {
    skip_blanks();
  }

  bool next(std::string_view& token) {
    if (p_ == end_) {
      if (!pending_comma_) return false;
      pending_comma_ = false;
      token = {};
      return true;
    }
    const char* start = p_;
    if (!(commas_ && *p_ == ',')) {
      while (p_ < end_ && !is_blank(*p_) && !(commas_ && *p_ == ',')) ++p_;
    }
    token = std::string_view(start, static_cast<std::size_t>(p_ - start));
    skip_blanks();
    pending_comma_ = false;
    if (commas_ && p_ < end_ && *p_ == ',') {
      ++p_;
      pending_comma_ = true;
      skip_blanks();
    }
    return true;
  }

 private:
  void skip_blanks() {
    while (p_ < end_ && is_blank(*p_)) ++p_;
  }
  const char* p_;
  const char* end_;
  bool commas_;
  bool pending_comma_ = false;
};

// Number of tokens in a line (for error messages and header inspection).
int count_tokens(std::string_view line, bool commas);

// ---- numbers --------------------------------------------------------------------------------------------

enum class NumberStatus { ok, empty, invalid, trailing, out_of_range };

inline NumberStatus scan_int(std::string_view token, std::int64_t& out) {
  if (token.empty()) return NumberStatus::empty;
  const char* end = token.data() + token.size();
  const auto [ptr, ec] = std::from_chars(token.data(), end, out);
  if (ec == std::errc::invalid_argument) return NumberStatus::invalid;
  if (ec == std::errc::result_out_of_range) return NumberStatus::out_of_range;
  return ptr == end ? NumberStatus::ok : NumberStatus::trailing;
}

// Accepts what std::from_chars(general) accepts, plus a leading '+'.
inline NumberStatus scan_double(std::string_view token, double& out) {
  if (token.empty()) return NumberStatus::empty;
  if (token.size() > 1 && token[0] == '+' && token[1] != '-' && token[1] != '+') token.remove_prefix(1);
  const char* end = token.data() + token.size();
  const auto [ptr, ec] = std::from_chars(token.data(), end, out, std::chars_format::general);
  if (ec == std::errc::invalid_argument) return NumberStatus::invalid;
  if (ec == std::errc::result_out_of_range) return NumberStatus::out_of_range;
  return ptr == end ? NumberStatus::ok : NumberStatus::trailing;
}

// True for a token that starts like a number ("12", "-3", "+.5", ".5"): tells a column-name header from data.
inline bool looks_numeric(std::string_view t) {
  if (t.empty()) return false;
  if (is_digit(t[0])) return true;
  if (t[0] == '-' || t[0] == '+' || t[0] == '.') return t.size() > 1 && (is_digit(t[1]) || t[1] == '.');
  return false;
}

[[noreturn]] void throw_bad_integer(const LineRef& at, std::string_view label, std::string_view token,
                                    NumberStatus status);
[[noreturn]] void throw_id_out_of_range(const LineRef& at, std::string_view label, std::int64_t id,
                                        std::int64_t lo, std::int64_t hi);
[[noreturn]] void throw_bad_weight(const LineRef& at, std::string_view where, std::string_view token,
                                   NumberStatus status, double value);

// A node id in lo..hi (hi < 0: no upper bound). `label` names it in messages ("node id", "vertex index").
inline std::int64_t parse_id(std::string_view token, const LineRef& at, std::string_view label, std::int64_t lo,
                             std::int64_t hi) {
  std::int64_t id = 0;
  const NumberStatus status = scan_int(token, id);
  if (status != NumberStatus::ok) throw_bad_integer(at, label, token, status);
  if (id < lo || (hi >= 0 && id > hi)) throw_id_out_of_range(at, label, id, lo, hi);
  return id;
}

// A weight: finite and > 0. `where` (e.g. " in column 3") follows the token in messages.
inline double parse_weight(std::string_view token, const LineRef& at, std::string_view where = {}) {
  double w = 0;
  const NumberStatus status = scan_double(token, w);
  if (status != NumberStatus::ok || !(w > 0) || w == std::numeric_limits<double>::infinity()) {
    throw_bad_weight(at, where, token, status, w);
  }
  return w;
}

// ---- output ---------------------------------------------------------------------------------------------

inline void add_arc(ParsedChunk& out, std::int64_t u, std::int64_t v, double w, bool keep_self_loops) {
  if (u == v && !keep_self_loops) {
    ++out.self_loops_dropped;
    return;
  }
  out.arcs.push_back(Arc{u, v, w});
}

}  // namespace graphrf::detail
