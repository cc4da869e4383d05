#pragma once
// A Prometheus text-format (0.0.4) reader that keeps only the families a
// caller asks for, as metrics-server's decoder does for the kubelet's
// resource metrics: a multi-MiB exposition costs a newline scan plus a name
// check per line, and only wanted lines are parsed. Garbage is counted and
// described, never thrown.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace plegscope {

struct PromSample {
  std::string name;  // as written: "x_bucket", "x_sum", "x_total", ...
  std::vector<std::pair<std::string, std::string>> labels;  // unescaped values
  double value = 0;  // +Inf, -Inf and NaN as the doubles they name
  std::optional<int64_t> timestamp_ms;

  // nullptr when the sample has no such label.
  const std::string* label(std::string_view name) const;
};

enum class PromType { unknown, counter, gauge, histogram, summary, untyped };

struct PromFamily {
  std::string name;  // the wanted name this family was matched under
  PromType type = PromType::unknown;  // from its # TYPE line, if any
  std::string help;  // from its # HELP line, unescaped
  std::vector<PromSample> samples;
};

struct PromParseResult {
  std::vector<PromFamily> families;  // only wanted ones that had a line
  size_t lines = 0;
  size_t malformed_lines = 0;  // skipped; counted over every line
  std::string first_error;     // "line N: what", empty when none

  const PromFamily* family(std::string_view name) const;
};

// A sample line belongs to wanted family F when its name is F, or F plus
// _bucket, _sum, _count, _total or _created; an exact match wins (so a
// summary named "x_total" keeps "x_total_sum" apart from a family "x").
// Lines of unwanted families are checked only for a well-formed name.
// Never throws; any bytes are accepted.
PromParseResult parse_prom_text(std::string_view text, const std::vector<std::string>& wanted);

}  // namespace plegscope
