#include "host/cgroup_keyed.h"

#include "host/host_files.h"

namespace plegscope::host {

std::optional<KeyedCounters> parse_flat_keyed(std::string_view text) {
  KeyedCounters out;
  const bool well_formed = each_line(text, [&out](std::string_view line) {
    const size_t space = line.find(' ');
    if (space == std::string_view::npos || space == 0) return false;
    uint64_t value = 0;
    if (!parse_u64(trim(line.substr(space + 1)), value)) return false;
    out.emplace_back(std::string(line.substr(0, space)), value);
    return true;
  });
  if (!well_formed || out.empty()) return std::nullopt;
  return out;
}

std::optional<uint64_t> keyed_value(const KeyedCounters& counters, std::string_view key) {
  for (const auto& [k, v] : counters)
    if (k == key) return v;
  return std::nullopt;
}

}  // namespace plegscope::host
