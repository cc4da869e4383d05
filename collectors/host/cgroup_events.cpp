#include "host/cgroup_events.h"

#include "host/cgroup_keyed.h"

namespace plegscope::host {

std::optional<CgroupEvents> parse_cgroup_events(std::string_view text) {
  auto keyed = parse_flat_keyed(text);
  if (!keyed) return std::nullopt;
  auto populated = keyed_value(*keyed, "populated");
  auto frozen = keyed_value(*keyed, "frozen");
  if (!populated || *populated > 1 || (frozen && *frozen > 1)) return std::nullopt;
  CgroupEvents out;
  out.populated = *populated == 1;
  if (frozen) out.frozen = *frozen == 1;
  return out;
}

}  // namespace plegscope::host
