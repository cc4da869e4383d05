// The host section's cgroup v2 lines: which hierarchy was read, the
// runtime's, the kubelet's and kubepods' limits, events and stalls, the
// stopped (frozen or freezing) cgroups by pod, and the containers whose
// cgroup disagrees with the runtime. A figure the kernel lacks is named
// unavailable, never printed as 0.
#include <string>

#include "report/format.h"
#include "report/host_sections.h"

namespace plegscope {
namespace {

using text::elapsed;
using text::fmt;

std::string who(const HostReport::CgroupV2::Unit& u) {
  std::string w = u.role;
  if (!u.owner.empty()) w += " " + u.owner;
  if (!u.pod.empty()) w += " pod " + u.pod;
  else if (!u.pod_uid.empty()) w += " pod uid " + u.pod_uid;
  if (!u.container_id.empty()) w += " container " + u.container_id.substr(0, 12);
  return w + " (" + (u.path.empty() ? "/" : u.path) + ")";
}

std::string figures(const HostReport::CgroupV2::Unit& u) {
  std::string f;
  auto add = [&](const std::string& s) { f += (f.empty() ? "" : ", ") + s; };
  if (u.frozen.value_or(false)) add("FROZEN");
  else if (u.freeze.value_or(false)) add("FREEZING (cgroup.freeze 1, not frozen)");
  if (u.populated && !*u.populated) add("no process");
  if (u.pids_current)
    add("pids " + std::to_string(*u.pids_current) + "/" + (u.pids_max ? std::to_string(*u.pids_max) : "max"));
  if (u.pids_events_max && *u.pids_events_max > 0) add(std::to_string(*u.pids_events_max) + " forks refused");
  if (u.memory_high && *u.memory_high > 0) add("memory.high hit " + std::to_string(*u.memory_high) + " times");
  if (u.memory_oom_kill && *u.memory_oom_kill > 0) add(std::to_string(*u.memory_oom_kill) + " OOM kills");
  if (u.nr_dying_descendants) add(std::to_string(*u.nr_dying_descendants) + " dying descendants");
  for (const auto& p : u.pressure)
    if (p.some_seconds && p.interval_seconds > 0)
      add(p.resource + " stalled " + fmt("%.0f%%", 100 * *p.some_seconds / p.interval_seconds) + " of " +
          elapsed(p.interval_seconds));
  if (!u.unavailable.empty()) {
    std::string list;
    for (const auto& n : u.unavailable) list += (list.empty() ? "" : " ") + n;
    add("unavailable: " + list);
  }
  if (u.error) add("unreadable: " + *u.error);
  return f;
}

}  // namespace

std::string cgroup_v2_text(const HostReport& h) {
  if (!h.cgroup_v2) return "";
  const auto& v2 = *h.cgroup_v2;
  std::string out = "  cgroup v2: " + v2.mode + " at " + v2.root +
                    (v2.driver.empty() ? ", no kubepods" : ", " + v2.driver + " driver") + ", " +
                    std::to_string(v2.pods_read) + " pods and " + std::to_string(v2.containers) +
                    " container cgroups read\n";
  for (const auto& u : v2.units) out += "    " + who(u) + ": " + figures(u) + "\n";
  for (const auto& d : v2.divergences)
    out += "    diverges: container " + d.container_id.substr(0, 12) +
           (d.pod.empty() ? " of pod uid " + d.pod_uid : " of " + d.pod) +
           (d.kind == "running_without_process"
                ? " is Running for the runtime but its cgroup holds no process"
                : " has exited for the runtime but its cgroup still holds processes (cleanup waits on them)") +
           "\n";
  if (!v2.divergence_checked && v2.containers > 0)
    out += "    (containers not compared with the runtime: a relist was running)\n";
  return out;
}

}  // namespace plegscope
