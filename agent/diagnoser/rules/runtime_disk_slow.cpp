// runtime_disk_slow: the device under the runtime's root answers slowly
// (ms per IO) or is busy nearly all the time. Like node pressure it is named
// only as what is behind slow or hung runtime calls: a busy disk under fast
// calls is no PLEG cause (interactions.cpp drops it then).
#include "diagnoser/cgroup_stalls.h"
#include "diagnoser/rule.h"
#include "diagnoser/rules/runtime_disk_slow.h"

namespace plegscope {

std::optional<Finding> judge_runtime_disk_slow(const Context& c) {
  if (!c.s.host || !c.s.host->runtime_disk.value) return std::nullopt;
  const host::RuntimeDisk& disk = *c.s.host->runtime_disk.value;
  if (!disk.latency_ms || !disk.utilization) return std::nullopt;  // one sample: no rates yet
  const bool slow = *disk.latency_ms >= c.t.disk_latency_ms;
  const bool busy = *disk.utilization >= c.t.disk_utilization;
  if (!slow && !busy) return std::nullopt;
  Finding f = make_finding(CauseId::kRuntimeDiskSlow, Severity::kWarning, 0.5 + (slow ? 0.1 : 0) + (busy ? 0.05 : 0));
  RuntimeDiskSlowDetails& d = f.details<RuntimeDiskSlowDetails>();
  d.device = disk.device;
  d.mount = disk.mount;
  d.latency_ms = *disk.latency_ms;
  d.utilization = *disk.utilization;
  f.strong = slow && *disk.latency_ms >= 3 * c.t.disk_latency_ms;
  f.evidence.push_back({"runtime_disk_latency_ms", *disk.latency_ms, c.t.disk_latency_ms});
  f.evidence.push_back({"runtime_disk_utilization", *disk.utilization, c.t.disk_utilization});
  add_cgroup_stalls(c, f, {"io"});
  return f;
}

}  // namespace plegscope
