// HostScanner's cgroup v2 part: the runtime's and the kubelet's own cgroups
// (state, limits, events, pressure), every pod and container under kubepods,
// and the runtime's processes whose cgroup is frozen. On a v1 host with no
// v2 hierarchy mounted nothing is read.
#include <algorithm>
#include <map>

#include "host/cgroup_pids.h"
#include "host/host_files.h"
#include "host/host_scan_state.h"
#include "host/pod_cgroup.h"

namespace plegscope::host {
namespace {

// The process's path in the v2 hierarchy ("0::" line), "" when it has none;
// nullopt with `error` when its cgroup file cannot be read.
std::optional<std::string> unified_path(const std::string& proc, int64_t pid, std::string& error) {
  const std::string file = proc + "/" + std::to_string(pid) + "/cgroup";
  FileText f = read_small_file(file, 16 * 1024);
  if (!f.ok) {
    error = f.error;
    return std::nullopt;
  }
  auto paths = parse_proc_cgroup(f.text);
  if (!paths) {
    error = file + ": malformed";
    return std::nullopt;
  }
  if (!paths->unified) {
    error = file + ": no unified (0::) line";
    return std::nullopt;
  }
  return strip_cgroup_namespace_dots(*paths->unified);
}

}  // namespace

void HostScanner::scan_cgroup_v2(HostEvidence& out, ScanState& st) {
  CgroupV2Evidence& v2 = out.cgroup_v2;
  if (!cgroup_v2_.begin(v2, st.now)) return;
  const std::string& proc = options_.proc_path;
  std::vector<std::tuple<std::string, std::string, int64_t>> own;  // role, comm, pid
  for (const auto& [pid, comm] : st.daemons) own.emplace_back("runtime", comm, pid);
  for (const auto& [pid, comm] : st.comms)
    if (comm == "kubelet") own.emplace_back("kubelet", comm, pid);
  std::set<std::string> done;
  for (const auto& [role, comm, pid] : own) {
    std::string error;
    auto path = unified_path(proc, pid, error);
    if (path && !done.insert(*path).second) continue;  // docker's containerd beside dockerd
    CgroupV2Unit u;
    if (path) {
      u = cgroup_v2_.read_unit(role, *path, CgroupV2Reader::Depth::kPressure);
    } else {
      u.role = role;
      u.unreadable = error;
    }
    u.owner = comm;
    v2.units.push_back(std::move(u));
  }
  cgroup_v2_.walk_kubepods(v2, watched_pods_);
  add_frozen_helpers(out, st);
  cgroup_v2_.end();
}

// A runtime process whose cgroup is frozen (or freezing) is as stopped as
// one in D, though it sleeps in S: it joins the blocked tasks with its
// cgroup, tracked across scans the same way.
void HostScanner::add_frozen_helpers(HostEvidence& out, ScanState& st) {
  auto& procs = out.processes;
  CgroupV2Evidence& v2 = out.cgroup_v2;
  std::map<std::string, CgroupV2Unit> by_path;  // helpers share cgroups (containerd.service)
  for (size_t i = 0; i < st.runtime.size(); ++i) {
    const auto& s = st.runtime[i];
    const HelperProcess& h = procs.helpers[i];
    if (s.stat.state == 'D') continue;  // already blocked
    std::string error;
    auto path = unified_path(options_.proc_path, h.pid, error);
    if (!path || path->empty()) continue;  // gone, or the root cgroup (never frozen)
    auto it = by_path.find(*path);
    if (it == by_path.end()) {
      // Its limits and events too (memory.events' high and oom_kill on the
      // helpers' cgroups), once per cgroup: shims often share the runtime's.
      it = by_path.emplace(*path, cgroup_v2_.read_unit("helper", *path, CgroupV2Reader::Depth::kLimits)).first;
      CgroupV2Unit& unit = it->second;
      unit.owner = h.comm;
      if (auto uid = pod_uid_from_cgroup("0::/" + *path)) unit.pod_uid = *uid;
      const bool own_unit = std::any_of(v2.units.begin(), v2.units.end(),
                                        [&](const CgroupV2Unit& u) {
                                          return u.path == unit.path && (u.role == "runtime" || u.role == "kubelet");
                                        });
      if (!own_unit && (unit.stopped() || unit.memory_oom_kill.value_or(0) > 0 || unit.memory_high.value_or(0) > 0))
        v2.units.push_back(unit);
    }
    const CgroupV2Unit& unit = it->second;
    if (!unit.stopped()) continue;
    BlockedTask b = blocked_task(st, h, s.stat.starttime, h.pid, h.comm,
                                 options_.proc_path + "/" + std::to_string(h.pid) + "/wchan");
    b.state = s.stat.state;
    b.frozen_cgroup = unit.path;
    b.freeze_incomplete = unit.freeze_incomplete();
    procs.blocked.push_back(std::move(b));
  }
}

}  // namespace plegscope::host
