#pragma once
// Go time.ParseDuration syntax for scenario files ("300ms", "1m30s", "5m"):
// the project's parser, minus negative durations (meaningless in a scenario).
#include <optional>
#include <string>

#include "clock.h"
#include "common/go_duration.h"

namespace fakecri {

inline std::optional<Duration> parse_go_duration(const std::string& text) {
  auto d = plegscope::parse_go_duration(text);
  if (!d || d->count() < 0) return std::nullopt;
  return d;
}

}  // namespace fakecri
