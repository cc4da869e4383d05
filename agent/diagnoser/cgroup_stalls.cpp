#include "diagnoser/cgroup_stalls.h"

#include <algorithm>

namespace plegscope {

void add_cgroup_stalls(const Context& c, Finding& f, const std::vector<std::string>& resources) {
  if (!c.s.host) return;
  for (const auto& u : c.s.host->cgroup_v2.units) {
    if (u.role != "runtime" && u.role != "kubelet" && u.role != "pod") continue;
    for (const auto& p : u.pressure) {
      auto share = p.some_share();
      if (!share || *share < kMaterialStallShare) continue;
      if (std::find(resources.begin(), resources.end(), p.resource) == resources.end()) continue;
      std::string labels = "unit=" + u.role;
      if (!u.pod_uid.empty()) labels += ",pod=" + u.pod_uid;
      else if (!u.owner.empty()) labels += ",owner=" + u.owner;
      f.evidence.push_back({"cgroup_stall_share{" + labels + ",resource=" + p.resource + "}", *share,
                            kMaterialStallShare});
    }
  }
}

void add_cgroup_forks_refused(const Context& c, Finding& f) {
  if (!c.s.host) return;
  for (const auto& u : c.s.host->cgroup_v2.units) {
    if (!u.pids_events_max || *u.pids_events_max == 0) continue;
    std::string labels = "unit=" + u.role + (u.pod_uid.empty() ? "" : ",pod=" + u.pod_uid);
    f.evidence.push_back({"cgroup_pids_forks_refused{" + labels + "}", static_cast<double>(*u.pids_events_max), 0});
  }
}

}  // namespace plegscope
