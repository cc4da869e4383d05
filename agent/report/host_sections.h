#pragma once
// The report's host section and slowest per-pod calls, in text and
// HTML, and the stuck pod the HTML page names at its top. Stateless.
#include <optional>
#include <ostream>
#include <string>

#include "diagnoser/report.h"

namespace plegscope {

void host_text(const Report& report, std::ostream& out);
// The cgroup v2 lines of the host section ("" on a v1 host): cgroup_v2_text.cpp.
std::string cgroup_v2_text(const HostReport& host);
std::string host_html(const Report& report);

// The pod that holds the node, when a hang cause is named: the pod of a
// runtime helper in D, else that of the oldest per-pod call in flight.
// "default/web-0 (sandbox 4c5d…): PodSandboxStatus in flight for 14s; its
// containerd-shim-runc-v2 (pid 4242) in D at nfs_wait_bit_killable".
std::optional<std::string> stuck_pod_line(const Report& report);

}  // namespace plegscope
