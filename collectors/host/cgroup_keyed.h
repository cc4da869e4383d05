#pragma once
// cgroup v2's flat-keyed files ("key value" per line: cgroup.events,
// cgroup.stat, pids.events, memory.events). Pure. Each file's own parser
// picks its keys from this; a key the kernel does not print stays absent,
// which the readers report as unavailable, never as zero.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace plegscope::host {

using KeyedCounters = std::vector<std::pair<std::string, uint64_t>>;

// nullopt when a line is not "<key> <decimal>" or the text holds no line.
std::optional<KeyedCounters> parse_flat_keyed(std::string_view text);

// The value of `key`, nullopt when the kernel did not print it.
std::optional<uint64_t> keyed_value(const KeyedCounters& counters, std::string_view key);

}  // namespace plegscope::host
