// shim_lost: a container the runtime lists as running has no helper any
// more. On CRI-O the container's conmon is the only writer of its exit file,
// so once conmon dies CRI-O reports the container running for good: the
// kubelet never sees it exit, never restarts it, and its pod's status is
// stale. Measured as: no conmon process names the container (the host
// scan), CRI-O's /containers/<id> page still holds it (two periods in a row,
// or once beside CRI-O's own containers_stopped_monitor_count for its name),
// and whether its init process still lives.
#include "diagnoser/rule.h"
#include "diagnoser/rules/shim_lost.h"

namespace plegscope {
namespace {

// Checks in a row before a container is named without CRI-O's own count: a
// conmon starting between the host scan and the page read is not lost.
constexpr int kChecksAlone = 2;

bool counted_by_runtime(const Context& c, const std::string& name) {
  return !name.empty() && c.s.runtime_metrics.stopped_monitors.count(name) > 0;
}

}  // namespace

std::optional<Finding> judge_shim_lost(const Context& c) {
  if (c.runtime.family != RuntimeFamily::kCrio) return std::nullopt;
  const CrioPagesEvidence& pages = c.s.crio_pages;
  Finding f = make_finding(CauseId::kShimLost, Severity::kWarning, 0.7);
  ShimLostDetails& d = f.details<ShimLostDetails>();
  int counted = 0, alive = 0;
  for (const auto& u : pages.unmonitored) {
    const bool counted_here = counted_by_runtime(c, u.name);
    if (u.checks < kChecksAlone && !counted_here) continue;
    counted += counted_here ? 1 : 0;
    alive += u.init_alive ? 1 : 0;
    PodRef pod;
    if (auto it = c.s.unmonitored_pods.find(u.id); it != c.s.unmonitored_pods.end()) pod = it->second;
    if (pod.sandbox_id.empty()) pod.sandbox_id = u.sandbox;
    if (f.pods.size() < 5) f.pods.push_back(pod);
    Finding::HostProcess p;
    p.pid = u.init_pid;
    p.comm = u.name.empty() ? u.id.substr(0, 12) : u.name;
    p.count = u.init_alive ? 1 : 0;
    p.sandbox_id = u.sandbox;
    if (f.processes.size() < 5) f.processes.push_back(p);
    const std::string labels = "container=" + u.id.substr(0, 12);
    f.evidence.push_back({"helper_processes{" + labels + "}", 0, 1});
    f.evidence.push_back({"runtime_state_running{" + labels + "}", 1, std::nullopt});
    f.evidence.push_back({"init_process_alive{" + labels + ",pid=" + std::to_string(u.init_pid) + "}",
                          u.init_alive ? 1.0 : 0.0, std::nullopt});
    if (counted_here)
      f.evidence.push_back({"containers_stopped_monitor_count{name=" + u.name + "}",
                            c.s.runtime_metrics.stopped_monitors.at(u.name), 0});
  }
  if (f.processes.empty()) return std::nullopt;
  d.objects = static_cast<int>(pages.unmonitored.size());
  d.current = alive;
  // CRI-O's own count beside the missing process: no doubt left.
  if (counted > 0) f.confidence = 0.85;
  return f;
}

}  // namespace plegscope
