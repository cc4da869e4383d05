#pragma once
// <cgroup>/cgroup.stat: "nr_descendants N" and "nr_dying_descendants N".
// Dying descendants are removed cgroups the kernel still holds (memory
// still charged to them): thousands under kubepods slow every cgroup walk
// and creation the runtime makes. Pure.
#include <cstdint>
#include <optional>
#include <string_view>

namespace plegscope::host {

struct CgroupStat {
  uint64_t nr_descendants = 0;
  uint64_t nr_dying_descendants = 0;
};

// nullopt when malformed or when either count is missing.
std::optional<CgroupStat> parse_cgroup_stat(std::string_view text);

}  // namespace plegscope::host
