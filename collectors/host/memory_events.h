#pragma once
// <cgroup>/memory.events: "high N" (times the cgroup was throttled for
// passing memory.high: its tasks stall in reclaim) and "oom_kill N" (tasks
// the OOM killer took in it or below). Pure.
#include <cstdint>
#include <optional>
#include <string_view>

namespace plegscope::host {

struct MemoryEvents {
  uint64_t high = 0;
  uint64_t max = 0;
  uint64_t oom = 0;
  std::optional<uint64_t> oom_kill;  // nullopt: a kernel before 4.13
};

// nullopt when malformed or without high, max and oom.
std::optional<MemoryEvents> parse_memory_events(std::string_view text);

}  // namespace plegscope::host
