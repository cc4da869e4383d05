#pragma once
// <cgroup>/cgroup.events: "populated 0|1" (any process in it or below) and,
// from Linux 5.2, "frozen 0|1" (the freeze asked through cgroup.freeze, on
// it or an ancestor, has completed). Pure.
#include <optional>
#include <string_view>

namespace plegscope::host {

struct CgroupEvents {
  bool populated = false;
  std::optional<bool> frozen;  // nullopt: a kernel without the v2 freezer
};

// nullopt when malformed or without "populated".
std::optional<CgroupEvents> parse_cgroup_events(std::string_view text);

}  // namespace plegscope::host
