#include "host/memory_events.h"

#include "host/cgroup_keyed.h"

namespace plegscope::host {

std::optional<MemoryEvents> parse_memory_events(std::string_view text) {
  auto keyed = parse_flat_keyed(text);
  if (!keyed) return std::nullopt;
  auto high = keyed_value(*keyed, "high");
  auto max = keyed_value(*keyed, "max");
  auto oom = keyed_value(*keyed, "oom");
  if (!high || !max || !oom) return std::nullopt;
  MemoryEvents out;
  out.high = *high;
  out.max = *max;
  out.oom = *oom;
  out.oom_kill = keyed_value(*keyed, "oom_kill");
  return out;
}

}  // namespace plegscope::host
