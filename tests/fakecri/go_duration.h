#pragma once
// Go time.ParseDuration syntax for scenario files ("300ms", "1m30s", "5m").
// The fake keeps its own parser rather than linking the agent's: a test
// double must not share code with the system it tests.
#include <optional>
#include <string>

#include "clock.h"

namespace fakecri {

// nullopt on anything Go would reject, and on negative durations (a
// scenario never needs one).
std::optional<Duration> parse_go_duration(const std::string& text);

}  // namespace fakecri
