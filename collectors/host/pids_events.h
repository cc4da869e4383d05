#pragma once
// <cgroup>/pids.events (and, from Linux 6.13, pids.events.local): "max N",
// how many forks were refused because this cgroup's pids.max (events: here
// or below; local: this cgroup's own limit) was reached. Pure.
#include <cstdint>
#include <optional>
#include <string_view>

namespace plegscope::host {

// The "max" count; nullopt when malformed or without it.
std::optional<uint64_t> parse_pids_events_max(std::string_view text);

}  // namespace plegscope::host
