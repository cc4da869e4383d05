#pragma once
// <cgroup>/cgroup.freeze: "1" when a freeze of this cgroup was asked (by a
// runtime's pause, or left behind by one that timed out), "0" otherwise. It
// says what was asked, not what happened: cgroup.events' "frozen" says
// whether it completed. Pure.
#include <optional>
#include <string_view>

namespace plegscope::host {

// nullopt unless the text is "0" or "1" (white space around it allowed).
std::optional<bool> parse_cgroup_freeze(std::string_view text);

}  // namespace plegscope::host
