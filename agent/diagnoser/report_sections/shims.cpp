#include "diagnoser/report_sections/shims.h"

#include <algorithm>
#include <tuple>

namespace plegscope {

void fill_shims(const Snapshot& s, HostReport::Processes& processes, size_t max_listed) {
  processes.shims.clear();
  processes.shims_total = 0;
  if (!s.host) return;
  for (const auto& h : s.host->processes.helpers) {
    if (h.role != "shim" && h.role != "conmon") continue;
    HostReport::Shim shim;
    shim.pid = h.pid;
    shim.comm = h.comm;
    shim.state = std::string(1, h.state);
    shim.seconds = h.age_seconds;
    shim.sandbox_id = h.sandbox_id;
    shim.container_id = h.container_id;
    if (auto it = s.shim_pods.find(h.pid); it != s.shim_pods.end()) {
      const PodRef& pod = it->second;
      if (!pod.name.empty()) shim.pod = pod.namespace_ + "/" + pod.name;
      if (shim.sandbox_id.empty()) shim.sandbox_id = pod.sandbox_id;  // a conmon's, through its container
    }
    processes.shims.push_back(std::move(shim));
  }
  processes.shims_total = static_cast<int64_t>(processes.shims.size());
  std::sort(processes.shims.begin(), processes.shims.end(), [](const HostReport::Shim& a, const HostReport::Shim& b) {
    return std::tie(a.pod, a.pid) < std::tie(b.pod, b.pid);
  });
  if (processes.shims.size() > max_listed) processes.shims.resize(max_listed);
}

}  // namespace plegscope
