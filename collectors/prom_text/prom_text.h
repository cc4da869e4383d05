#pragma once
// A Prometheus text-format (0.0.4) reader that keeps only the families a
// caller asks for, as metrics-server's decoder does for the kubelet's
// resource metrics: a multi-MiB exposition costs a newline scan plus a name
// check per line, and only wanted lines are parsed. Garbage is counted and
// described, never thrown.
//
// The reader costs what it keeps: a kept sample's name and labels are views
// into the page, in one pass and with no string of their own; only a label
// value written with an escape gets an unescaped copy, held by the result.
// So the page must outlive the result, and the result is moved, never copied.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace plegscope {

struct PromLabel {
  std::string_view name;
  std::string_view value;  // unescaped
};

struct PromSample {
  std::string_view name;  // as written: "x_bucket", "x_sum", "x_total", ...
  const PromLabel* labels = nullptr;  // label_count of them, in the order written
  size_t label_count = 0;
  double value = 0;  // +Inf, -Inf and NaN as the doubles they name
  std::optional<int64_t> timestamp_ms;

  // nullopt when the sample has no such label.
  std::optional<std::string_view> label(std::string_view name) const;
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
  size_t zero_samples_skipped = 0;  // of summed families (parse_prom_text)
  std::string first_error;     // "line N: what", empty when none

  const PromFamily* family(std::string_view name) const;

  PromParseResult() = default;
  PromParseResult(PromParseResult&&) = default;
  PromParseResult& operator=(PromParseResult&&) = default;
  // The samples point into label_store: a copy would point into the original.
  PromParseResult(const PromParseResult&) = delete;
  PromParseResult& operator=(const PromParseResult&) = delete;

  // Every kept sample's labels, back to back; and the unescaped copies of the
  // values written with an escape (a deque: its strings never move).
  std::vector<PromLabel> label_store;
  std::deque<std::string> unescaped_values;
};

// A sample line belongs to wanted family F when its name is F, or F plus
// _bucket, _sum, _count, _total or _created; an exact match wins (so a
// summary named "x_total" keeps "x_total_sum" apart from a family "x").
// Lines of unwanted families are checked only for a well-formed name.
// Never throws; any bytes are accepted. The result's views point into text.
//
// `summed` names wanted families whose samples the caller only adds up (a
// counter summed over a label such as grpc_code, where most series of a
// busy page are still 0): a line of theirs that ends in "} 0" adds nothing,
// so it is not kept and its labels are neither read nor checked.
PromParseResult parse_prom_text(std::string_view text, const std::vector<std::string>& wanted,
                                const std::vector<std::string>& summed = {});

// A sample value or an "le"/"quantile" label as the exposition writes it
// (Go's ParseFloat spellings: +Inf, -Inf, NaN, decimals with an exponent);
// nullopt for anything else.
std::optional<double> parse_prom_value(std::string_view text);

}  // namespace plegscope
