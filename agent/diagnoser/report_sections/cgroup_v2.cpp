#include "diagnoser/report_sections/cgroup_v2.h"

namespace plegscope {
namespace {

std::string pod_of(const Snapshot& s, const std::string& uid) {
  auto it = s.cgroup_pods.find(uid);
  return it == s.cgroup_pods.end() || it->second.name.empty() ? "" : it->second.namespace_ + "/" + it->second.name;
}

HostReport::CgroupV2::Unit unit_of(const host::CgroupV2Unit& u, const Snapshot& s) {
  HostReport::CgroupV2::Unit out;
  out.role = u.role;
  out.path = u.path;
  out.owner = u.owner;
  out.pod_uid = u.pod_uid;
  out.pod = pod_of(s, u.pod_uid);
  out.container_id = u.container_id;
  out.populated = u.populated;
  out.frozen = u.frozen;
  out.freeze = u.freeze;
  out.pids_current = u.pids_current;
  out.pids_max = u.pids_max;
  out.pids_events_max = u.pids_events_max;
  out.pids_events_local_max = u.pids_events_local_max;
  out.memory_high = u.memory_high;
  out.memory_oom_kill = u.memory_oom_kill;
  out.nr_dying_descendants = u.nr_dying_descendants;
  for (const auto& p : u.pressure) out.pressure.push_back({p.resource, p.some_seconds, p.full_seconds, p.interval_seconds});
  out.unavailable = u.unavailable;
  if (!u.unreadable.empty()) out.error = u.unreadable;
  return out;
}

}  // namespace

std::vector<HostReport::CgroupV2::Divergence> cgroup_divergences(const std::vector<host::ContainerCgroup>& containers,
                                                                 const std::vector<std::string>& states) {
  std::vector<HostReport::CgroupV2::Divergence> out;
  for (size_t i = 0; i < containers.size() && i < states.size(); ++i) {
    const auto& c = containers[i];
    if (!c.populated || states[i].empty()) continue;
    std::string kind;
    if (states[i] == "running" && !*c.populated) kind = "running_without_process";
    else if (states[i] == "exited" && *c.populated) kind = "exited_with_processes";
    if (kind.empty()) continue;
    out.push_back({kind, c.id, c.pod_uid, "", states[i], c.path});
  }
  return out;
}

void fill_cgroup_v2(const Snapshot& s, HostReport& h) {
  if (!s.host) return;
  const host::CgroupV2Evidence& v2 = s.host->cgroup_v2;
  if (v2.mode.empty() || v2.mode == "v1") return;
  HostReport::CgroupV2 r;
  r.mode = v2.mode;
  r.root = v2.root;
  r.driver = v2.driver;
  r.pods_read = v2.pods_read;
  r.containers = static_cast<int64_t>(v2.containers.size());
  for (const auto& u : v2.units) r.units.push_back(unit_of(u, s));
  if (s.cgroup_container_states) {
    r.divergence_checked = true;
    r.divergences = cgroup_divergences(v2.containers, *s.cgroup_container_states);
    for (auto& d : r.divergences) d.pod = pod_of(s, d.pod_uid);
  }
  h.cgroup_v2 = std::move(r);
}

}  // namespace plegscope
