#include "host/cgroup_freeze.h"

#include "host/host_files.h"

namespace plegscope::host {

std::optional<bool> parse_cgroup_freeze(std::string_view text) {
  text = trim(text);
  if (text == "0") return false;
  if (text == "1") return true;
  return std::nullopt;
}

}  // namespace plegscope::host
