#include "go_duration.h"

#include <cctype>
#include <cmath>

namespace fakecri {

namespace {

// Nanoseconds per unit; longest suffix first so "ms" wins over "m".
struct Unit {
  const char* suffix;
  double nanos;
};
constexpr Unit kUnits[] = {{"ns", 1.0},      {"us", 1e3},         {"\xC2\xB5s", 1e3},
                           {"\xCE\xBCs", 1e3}, {"ms", 1e6},        {"s", 1e9},
                           {"m", 60e9},      {"h", 3600e9}};

}  // namespace

std::optional<Duration> parse_go_duration(const std::string& text) {
  if (text.empty()) return std::nullopt;
  if (text == "0") return Duration(0);
  size_t i = 0;
  if (text[0] == '+') i = 1;
  if (i == text.size()) return std::nullopt;
  double total = 0;
  while (i < text.size()) {
    size_t start = i;
    while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
    if (i == start) return std::nullopt;
    std::string number = text.substr(start, i - start);
    if (number == "." || number.find('.') != number.rfind('.')) return std::nullopt;
    double value = std::stod(number);
    const Unit* unit = nullptr;
    for (const auto& u : kUnits) {
      size_t n = std::char_traits<char>::length(u.suffix);
      if (text.compare(i, n, u.suffix) == 0) {
        // "m" must not swallow the "m" of "ms".
        if (unit == nullptr || n > std::char_traits<char>::length(unit->suffix)) unit = &u;
      }
    }
    if (unit == nullptr) return std::nullopt;
    i += std::char_traits<char>::length(unit->suffix);
    total += value * unit->nanos;
  }
  if (!std::isfinite(total) || total > 9.2e18) return std::nullopt;
  return Duration(static_cast<Duration::rep>(std::llround(total)));
}

}  // namespace fakecri
