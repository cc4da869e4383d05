#include "host/pids_events.h"

#include "host/cgroup_keyed.h"

namespace plegscope::host {

std::optional<uint64_t> parse_pids_events_max(std::string_view text) {
  auto keyed = parse_flat_keyed(text);
  if (!keyed) return std::nullopt;
  return keyed_value(*keyed, "max");
}

}  // namespace plegscope::host
