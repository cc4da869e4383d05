#pragma once
// Go's time.Duration syntax, both ways: flags accept "500ms", "1h30m", and
// health messages print durations exactly as the kubelet's %v does ("3m5.2s").
#include <optional>
#include <string>

#include "common/clock.h"

namespace plegscope {

// Parses Go duration syntax ("300ms", "-1.5h", "2h45m", "1us", "0").
// Returns nullopt on anything Go's time.ParseDuration would reject.
std::optional<Duration> parse_go_duration(const std::string& text);

// Formats like Go's Duration.String(): "0s", "1.5s", "3m5.2s", "1h0m0s", "250ms".
std::string format_go_duration(Duration d);

}  // namespace plegscope
