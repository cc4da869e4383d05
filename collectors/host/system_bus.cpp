#include "host/system_bus.h"

namespace plegscope::host {

bool bus_daemon_comm(std::string_view comm) { return comm == "dbus-daemon" || comm == "dbus-broker"; }

bool in_system_slice(std::string_view proc_cgroup) {
  while (!proc_cgroup.empty()) {
    const size_t end = proc_cgroup.find('\n');
    std::string_view line = proc_cgroup.substr(0, end);
    proc_cgroup = end == std::string_view::npos ? std::string_view() : proc_cgroup.substr(end + 1);
    // "<id>:<controllers>:<path>": the path is after the second colon.
    const size_t first = line.find(':');
    const size_t second = first == std::string_view::npos ? first : line.find(':', first + 1);
    if (second == std::string_view::npos) continue;
    std::string_view path = line.substr(second + 1);
    for (size_t at = path.find("/system.slice/"); at != std::string_view::npos;
         at = path.find("/system.slice/", at + 1))
      if (at + 14 < path.size()) return true;
  }
  return false;
}

bool bus_state_stalled(char state) { return state == 'T' || state == 't' || state == 'D'; }

}  // namespace plegscope::host
