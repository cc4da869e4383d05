#include "prom_text/prom_text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace plegscope {
namespace {

bool name_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}
// Every line's name is scanned, wanted or not, and every kept label: one
// table load per byte.
enum CharClass : unsigned char { kName = 1, kLabel = 2, kValueStop = 4 };
struct CharClasses {
  unsigned char table[256] = {};
  CharClasses() {
    for (int c = 0; c < 256; ++c) {
      bool digit = c >= '0' && c <= '9';
      bool start = name_start(static_cast<char>(c));
      table[c] = static_cast<unsigned char>(((start || digit) ? kName : 0) |
                                            ((start || digit) && c != ':' ? kLabel : 0) |
                                            (c == '"' || c == '\\' ? kValueStop : 0));
    }
  }
  bool is(char c, CharClass k) const { return table[static_cast<unsigned char>(c)] & k; }
};
const CharClasses kChars;
bool name_char(char c) { return kChars.is(c, kName); }
bool label_start(char c) { return name_start(c) && c != ':'; }
bool label_char(char c) { return kChars.is(c, kLabel); }
bool blank(char c) { return c == ' ' || c == '\t'; }

// The first '"' or '\\' in [p, end), or end: where a label value ends or
// needs unescaping. Values are most of a kept line's bytes, so 16 at a time
// where the machine has it.
const char* value_stop(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  while (end - p >= 16) {
    __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    int hits = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(chunk, quote), _mm_cmpeq_epi8(chunk, backslash)));
    if (hits) return p + __builtin_ctz(static_cast<unsigned>(hits));
    p += 16;
  }
#endif
  while (p < end && !kChars.is(*p, kValueStop)) ++p;
  return p;
}

// A cursor over one line; every read checks the end.
struct Cursor {
  std::string_view s;
  size_t i = 0;
  bool done() const { return i >= s.size(); }
  char peek() const { return done() ? '\0' : s[i]; }
  void skip_blanks() {
    while (!done() && blank(s[i])) ++i;
  }
  std::string_view take_while(bool (*pred)(char)) {
    size_t start = i;
    while (!done() && pred(s[i])) ++i;
    return s.substr(start, i - start);
  }
  std::string_view take_token() {
    size_t start = i;
    while (!done() && !blank(s[i])) ++i;
    return s.substr(start, i - start);
  }
};

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k) {
    char x = a[k], y = b[k];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

// Go's strconv.ParseFloat spellings the exposition uses: +Inf, -Inf, NaN,
// and ordinary decimals with an optional sign and exponent.
std::optional<double> parse_value(std::string_view t) {
  if (t.empty()) return std::nullopt;
  // Most values are small counts: digits only, exact in a double.
  if (t.size() <= 15) {
    int64_t n = 0;
    size_t k = 0;
    for (; k < t.size(); ++k) {
      unsigned d = static_cast<unsigned char>(t[k]) - '0';
      if (d > 9) break;
      n = n * 10 + d;
    }
    if (k == t.size()) return static_cast<double>(n);
  }
  bool negative = false;
  std::string_view body = t;
  if (body[0] == '+' || body[0] == '-') {
    negative = body[0] == '-';
    body.remove_prefix(1);
  }
  if (iequals(body, "inf") || iequals(body, "infinity")) {
    double inf = std::numeric_limits<double>::infinity();
    return negative ? -inf : inf;
  }
  if (iequals(body, "nan")) return std::numeric_limits<double>::quiet_NaN();
  if (body.empty() || body[0] == '+' || body[0] == '-') return std::nullopt;
  double v = 0;
  auto [end, ec] = std::from_chars(body.data(), body.data() + body.size(), v);
  if (end != body.data() + body.size()) return std::nullopt;
  if (ec == std::errc::result_out_of_range) {
    // Rare: let strtod round to ±Inf or 0, as Go's ParseFloat does.
    v = std::strtod(std::string(body).c_str(), nullptr);
  } else if (ec != std::errc()) {
    return std::nullopt;
  }
  return negative ? -v : v;
}

std::optional<int64_t> parse_timestamp(std::string_view t) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || end != t.data() + t.size() || t.empty()) return std::nullopt;
  return v;
}

// HELP text escapes: \\ and \n; label values also \".
bool unescape(std::string_view in, bool quotes, std::string& out) {
  out.clear();
  out.reserve(in.size());
  for (size_t k = 0; k < in.size(); ++k) {
    char c = in[k];
    if (c != '\\') {
      out.push_back(c);
      continue;
    }
    if (++k == in.size()) return false;
    char e = in[k];
    if (e == '\\') out.push_back('\\');
    else if (e == 'n') out.push_back('\n');
    else if (e == '"' && quotes) out.push_back('"');
    else if (!quotes) { out.push_back('\\'); out.push_back(e); }
    else return false;
  }
  return true;
}

PromType type_from(std::string_view t) {
  if (t == "counter") return PromType::counter;
  if (t == "gauge") return PromType::gauge;
  if (t == "histogram") return PromType::histogram;
  if (t == "summary") return PromType::summary;
  if (t == "untyped") return PromType::untyped;
  return PromType::unknown;
}

constexpr std::string_view kSuffixes[] = {"_bucket", "_sum", "_count", "_total", "_created"};

class Parser {
 public:
  Parser(const std::vector<std::string>& wanted, const std::vector<std::string>& summed) {
    for (const auto& w : wanted) names_.push_back(w);
    std::sort(names_.begin(), names_.end());
    names_.erase(std::unique(names_.begin(), names_.end()), names_.end());
    slot_.assign(names_.size(), -1);
    summed_.assign(names_.size(), false);
    for (const auto& name : summed) {
      if (int k = find(name); k >= 0) summed_[k] = true;
    }
  }

  PromParseResult run(std::string_view text) {
    size_t pos = 0;
    while (pos < text.size()) {
      const void* nl = std::memchr(text.data() + pos, '\n', text.size() - pos);
      size_t end = nl ? static_cast<size_t>(static_cast<const char*>(nl) - text.data()) : text.size();
      std::string_view line = text.substr(pos, end - pos);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      ++result_.lines;
      line_no_ = result_.lines;
      one_line(line);
      pos = end + 1;
    }
    // The label store has stopped growing: point each sample at its labels.
    for (size_t f = 0; f < result_.families.size(); ++f) {
      auto& samples = result_.families[f].samples;
      for (size_t k = 0; k < samples.size(); ++k) {
        samples[k].labels = result_.label_store.data() + first_label_[f][k];
      }
    }
    return std::move(result_);
  }

 private:
  int find(std::string_view name) const {
    auto it = std::lower_bound(names_.begin(), names_.end(), name);
    if (it == names_.end() || *it != name) return -1;
    return static_cast<int>(it - names_.begin());
  }

  int wanted_index(std::string_view name) const {
    if (int k = find(name); k >= 0) return k;
    for (std::string_view suffix : kSuffixes) {
      if (name.size() > suffix.size() && name.substr(name.size() - suffix.size()) == suffix) {
        if (int k = find(name.substr(0, name.size() - suffix.size())); k >= 0) return k;
      }
    }
    return -1;
  }

  size_t slot_at(int k) {
    if (slot_[k] < 0) {
      slot_[k] = static_cast<int>(result_.families.size());
      result_.families.emplace_back();
      result_.families.back().name = std::string(names_[k]);
      first_label_.emplace_back();
    }
    return static_cast<size_t>(slot_[k]);
  }

  void fail(const char* what) {
    ++result_.malformed_lines;
    if (result_.first_error.empty()) {
      result_.first_error = "line " + std::to_string(line_no_) + ": " + what;
    }
  }

  // Parses `{a="b",...}` from the '{' at p, appending to the label store;
  // returns an error or nullptr, with p past the '}'.
  const char* labels(const char*& p, const char* end, size_t first) {
    auto skip_blanks = [&p, end] {
      while (p < end && blank(*p)) ++p;
    };
    ++p;  // '{'
    for (;;) {
      skip_blanks();
      if (p < end && *p == '}') { ++p; return nullptr; }
      if (p == end || !label_start(*p)) return "bad label name";
      const char* name_begin = p;
      while (++p < end && label_char(*p)) {}
      std::string_view name(name_begin, static_cast<size_t>(p - name_begin));
      skip_blanks();
      if (p == end || *p != '=') return "expected '=' after label name";
      ++p;
      skip_blanks();
      if (p == end || *p != '"') return "expected '\"' to open a label value";
      const char* value_begin = ++p;
      p = value_stop(p, end);
      if (p == end) return "unterminated label value";
      std::string_view value;
      if (*p == '"') {
        value = std::string_view(value_begin, static_cast<size_t>(p - value_begin));
        ++p;
      } else {
        bool escaped = false;
        for (; p < end; ++p) {
          if (escaped) escaped = false;
          else if (*p == '\\') escaped = true;
          else if (*p == '"') break;
        }
        if (p == end) return "unterminated label value";
        std::string& copy = result_.unescaped_values.emplace_back();
        if (!unescape(std::string_view(value_begin, static_cast<size_t>(p - value_begin)), true, copy)) {
          return "bad escape in label value";
        }
        value = copy;
        ++p;  // closing quote
      }
      auto& store = result_.label_store;
      for (size_t k = first; k < store.size(); ++k) {
        if (store[k].name == name) return "duplicate label name";
      }
      store.push_back(PromLabel{name, value});
      skip_blanks();
      if (p < end && *p == ',') { ++p; continue; }
      if (p < end && *p == '}') { ++p; return nullptr; }
      return "expected ',' or '}' after a label";
    }
  }

  void one_line(std::string_view line) {
    Cursor c{line};
    c.skip_blanks();
    if (c.done()) return;
    if (c.peek() == '#') {
      comment(c);
      return;
    }
    if (!name_start(c.peek())) return fail("expected a metric name");
    // Lines of one family come together: most names repeat the last one,
    // and a line that starts with it and then ends the name is checked and
    // looked up already.
    std::string_view rest = line.substr(c.i);
    size_t n = last_name_.size();
    if (n > 0 && rest.size() >= n && std::memcmp(rest.data(), last_name_.data(), n) == 0 &&
        (rest.size() == n || rest[n] == '{' || blank(rest[n]))) {
      c.i += n;
    } else {
      std::string_view name = c.take_while(name_char);
      if (!c.done() && c.peek() != '{' && !blank(c.peek())) return fail("bad character in metric name");
      last_name_ = name;
      last_index_ = wanted_index(name);
    }
    std::string_view name = last_name_;
    int k = last_index_;
    if (k < 0) return;
    if (summed_[k] && c.i < line.size() && line[c.i] == '{' && ends_in_zero_value(line)) {
      slot_at(k);
      ++result_.zero_samples_skipped;
      return;
    }
    PromSample sample;
    sample.name = name;
    size_t first = result_.label_store.size();
    size_t copies = result_.unescaped_values.size();
    c.skip_blanks();
    if (c.peek() == '{') {
      const char* p = line.data() + c.i;
      const char* err = labels(p, line.data() + line.size(), first);
      c.i = static_cast<size_t>(p - line.data());
      if (err) return drop(first, copies, err);
    }
    sample.label_count = result_.label_store.size() - first;
    c.skip_blanks();
    auto value = parse_value(c.take_token());
    if (!value) return drop(first, copies, "bad sample value");
    sample.value = *value;
    c.skip_blanks();
    if (!c.done()) {
      auto ts = parse_timestamp(c.take_token());
      if (!ts) return drop(first, copies, "bad timestamp");
      sample.timestamp_ms = *ts;
      c.skip_blanks();
      if (!c.done()) return drop(first, copies, "text after the timestamp");
    }
    size_t slot = slot_at(k);
    result_.families[slot].samples.push_back(sample);
    first_label_[slot].push_back(first);
  }

  // "...} 0": no label value can hold the closing brace here, since a value
  // never spans lines and nothing follows the "0".
  static bool ends_in_zero_value(std::string_view line) {
    while (!line.empty() && blank(line.back())) line.remove_suffix(1);
    if (line.size() < 3 || line.back() != '0' || !blank(line[line.size() - 2])) return false;
    line.remove_suffix(2);
    while (!line.empty() && blank(line.back())) line.remove_suffix(1);
    return !line.empty() && line.back() == '}';
  }

  // A malformed line keeps nothing.
  void drop(size_t first_label, size_t copies, const char* what) {
    result_.label_store.resize(first_label);
    result_.unescaped_values.resize(copies);
    fail(what);
  }

  void comment(Cursor& c) {
    ++c.i;  // '#'
    c.skip_blanks();
    std::string_view keyword = c.take_token();
    if (keyword != "HELP" && keyword != "TYPE") return;  // a plain comment
    c.skip_blanks();
    std::string_view name = c.take_token();
    if (name.empty() || !name_start(name[0]) ||
        !std::all_of(name.begin(), name.end(), name_char)) {
      return fail("bad metric name in a HELP or TYPE line");
    }
    int k = find(name);
    if (k < 0) return;
    c.skip_blanks();
    std::string_view rest = c.s.substr(std::min(c.i, c.s.size()));
    PromFamily& family = result_.families[slot_at(k)];
    if (keyword == "TYPE") {
      while (!rest.empty() && blank(rest.back())) rest.remove_suffix(1);
      family.type = type_from(rest);
      if (family.type == PromType::unknown) fail("unknown metric type");
    } else if (!unescape(rest, false, family.help)) {
      fail("bad escape in HELP text");
    }
  }

  std::vector<std::string_view> names_;
  std::vector<int> slot_;
  std::vector<bool> summed_;  // by names_ index
  std::vector<std::vector<size_t>> first_label_;  // by family slot, by sample
  PromParseResult result_;
  size_t line_no_ = 0;
  std::string_view last_name_;  // points into the text being parsed
  int last_index_ = -1;
};

}  // namespace

std::optional<std::string_view> PromSample::label(std::string_view name) const {
  for (size_t k = 0; k < label_count; ++k) {
    if (labels[k].name == name) return labels[k].value;
  }
  return std::nullopt;
}

const PromFamily* PromParseResult::family(std::string_view name) const {
  for (const auto& f : families) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

PromParseResult parse_prom_text(std::string_view text, const std::vector<std::string>& wanted,
                                const std::vector<std::string>& summed) {
  return Parser(wanted, summed).run(text);
}

std::optional<double> parse_prom_value(std::string_view text) { return parse_value(text); }

}  // namespace plegscope
