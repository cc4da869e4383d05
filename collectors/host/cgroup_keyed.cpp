#include "host/cgroup_keyed.h"

#include "host/host_files.h"

namespace plegscope::host {

std::optional<KeyedCounters> parse_flat_keyed(std::string_view text) {
  KeyedCounters out;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = trim(text.substr(at, end - at));
    at = end + 1;
    if (line.empty()) continue;
    const size_t space = line.find(' ');
    if (space == std::string_view::npos || space == 0) return std::nullopt;
    uint64_t value = 0;
    if (!parse_u64(trim(line.substr(space + 1)), value)) return std::nullopt;
    out.emplace_back(std::string(line.substr(0, space)), value);
  }
  if (out.empty()) return std::nullopt;
  return out;
}

std::optional<uint64_t> keyed_value(const KeyedCounters& counters, std::string_view key) {
  for (const auto& [k, v] : counters)
    if (k == key) return v;
  return std::nullopt;
}

}  // namespace plegscope::host
