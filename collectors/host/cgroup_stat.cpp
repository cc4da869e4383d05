#include "host/cgroup_stat.h"

#include "host/cgroup_keyed.h"

namespace plegscope::host {

std::optional<CgroupStat> parse_cgroup_stat(std::string_view text) {
  auto keyed = parse_flat_keyed(text);
  if (!keyed) return std::nullopt;
  auto live = keyed_value(*keyed, "nr_descendants");
  auto dying = keyed_value(*keyed, "nr_dying_descendants");
  if (!live || !dying) return std::nullopt;
  return CgroupStat{*live, *dying};
}

}  // namespace plegscope::host
