#include "common/go_duration.h"

#include <cstdint>
#include <limits>

namespace plegscope {
namespace {

struct Unit {
  const char* name;
  int64_t nanos;
};
// Longest names first so "ms" is not read as "m" followed by "s".
constexpr Unit kUnits[] = {{"ns", 1},           {"us", 1000},           {"\xC2\xB5s", 1000},
                           {"\xCE\xBCs", 1000}, {"ms", 1000000},        {"s", 1000000000},
                           {"m", 60000000000LL}, {"h", 3600000000000LL}};

// Appends `v` with `prec` implied decimal places, trailing zeros (and a bare
// point) dropped, as Go's fmtFrac + fmtInt do.
std::string fixed_point(uint64_t v, int prec) {
  std::string digits;
  bool printed = false;
  for (int i = 0; i < prec; ++i) {
    int d = static_cast<int>(v % 10);
    printed = printed || d != 0;
    if (printed) digits.insert(digits.begin(), static_cast<char>('0' + d));
    v /= 10;
  }
  if (printed) digits.insert(digits.begin(), '.');
  return std::to_string(v) + digits;
}

}  // namespace

std::optional<Duration> parse_go_duration(const std::string& text) {
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) {
    negative = text[i] == '-';
    ++i;
  }
  if (text.substr(i) == "0") return Duration(0);
  if (i == text.size()) return std::nullopt;
  long double total = 0;
  while (i < text.size()) {
    size_t start = i;
    long double value = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') value = value * 10 + (text[i++] - '0');
    bool had_int = i > start;
    bool had_frac = false;
    if (i < text.size() && text[i] == '.') {
      ++i;
      long double scale = 0.1L;
      while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
        value += (text[i++] - '0') * scale;
        scale /= 10;
        had_frac = true;
      }
    }
    if (!had_int && !had_frac) return std::nullopt;
    const Unit* unit = nullptr;
    size_t unit_len = 0;
    for (const Unit& u : kUnits) {
      size_t len = std::char_traits<char>::length(u.name);
      if (text.compare(i, len, u.name) == 0 && len > unit_len) {
        unit = &u;
        unit_len = len;
      }
    }
    if (unit == nullptr) return std::nullopt;
    // A unit name must not run on into more letters ("5sec").
    size_t after = i + unit_len;
    if (after < text.size() && !(text[after] >= '0' && text[after] <= '9') && text[after] != '.')
      return std::nullopt;
    i = after;
    total += value * unit->nanos;
    if (total > static_cast<long double>(std::numeric_limits<int64_t>::max())) return std::nullopt;
  }
  auto nanos = static_cast<int64_t>(total + 0.5L);
  return Duration(negative ? -nanos : nanos);
}

std::string format_go_duration(Duration d) {
  int64_t n = d.count();
  if (n == 0) return "0s";
  bool negative = n < 0;
  uint64_t u = negative ? static_cast<uint64_t>(-(n + 1)) + 1 : static_cast<uint64_t>(n);
  std::string out;
  if (u < 1000000000ULL) {
    if (u < 1000) {
      out = std::to_string(u) + "ns";
    } else if (u < 1000000) {
      out = fixed_point(u, 3) + "\xC2\xB5s";
    } else {
      out = fixed_point(u, 6) + "ms";
    }
  } else {
    out = fixed_point(u % 60000000000ULL, 9) + "s";
    uint64_t minutes = u / 60000000000ULL;
    if (minutes > 0) {
      out = std::to_string(minutes % 60) + "m" + out;
      uint64_t hours = minutes / 60;
      if (hours > 0) out = std::to_string(hours) + "h" + out;
    }
  }
  return negative ? "-" + out : out;
}

}  // namespace plegscope
